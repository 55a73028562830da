import { describe, expect, it } from 'vitest';
import { providerLabel } from '../../../../src/domains/chat/documents/providerLabel.js';

// The label on a document's file at its provider (src/domains/chat/documents/providerLabel.ts): the orphan reconcile
// deletes a file only when its label proves this deployment made it.

const id = 'doc_Ab-_0123456789xy';

describe('the provider file label', () => {
  it('names the file gw.<document id>.<mac>.<name>, keeps its extension last, and reads its own labels back', () => {
    const label = providerLabel('sk-account-key', 'redis:gateway:');
    const name = label.name(id, 'annual report.v2.pdf');
    expect(name).toMatch(/^gw\.doc_Ab-_0123456789xy\.[\w-]{22}\.annual report\.v2\.pdf$/);
    expect(label.documentOf(name)).toBe(id);
  });

  it("proves nothing for what an outsider would try: a hand-made name, a forged or edited MAC, another deployment's or another key's label", () => {
    const label = providerLabel('sk-account-key', 'redis:gateway:');
    const name = label.name(id, 'a.txt');
    const mac = name.split('.')[2];
    const otherId = 'doc_Zb-_0123456789xy';
    for (const guess of [
      'a.txt',
      'gw.a.txt',
      `gw.${id}.AAAAAAAAAAAAAAAAAAAAAA.a.txt`,
      `gw.${otherId}.${mac}.a.txt`,
      // The same MAC but for spare bits of its last character.
      `gw.${id}.${mac.slice(0, -1)}${String.fromCharCode(mac.charCodeAt(21) ^ 1)}.a.txt`,
      `gw.${id}.${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}.a.txt`,
      `gw.${id}.${mac}`,
      providerLabel('sk-account-key', 'redis:staging:').name(id, 'a.txt'),
      providerLabel('sk-other-key', 'redis:gateway:').name(id, 'a.txt'),
    ]) {
      expect(label.documentOf(guess), guess).toBeUndefined();
    }
    // A file the gateway made keeps its label whatever the user named it.
    expect(label.documentOf(label.name(id, 'gw.doc_AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.x.txt'))).toBe(id);
  });
});
