import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The name a document's file carries at its provider: `gw.<document id>.<mac>.<file name>`, where the MAC is an
 * HMAC-SHA256 of the deployment and the document id, keyed with the provider's API key. Only a gateway holding the
 * key can write a label that verifies, so the orphan reconcile deletes only files this deployment provably made:
 * never a file the operator uploaded to the same account by hand, nor one of another deployment (another
 * `REDIS_KEY_PREFIX`) sharing the account. The file name's own extension stays last: the provider reads the type
 * from it.
 */
export interface ProviderLabel {
  /** The name to upload `fileName` under, for document `documentId`. */
  name(documentId: string, fileName: string): string;
  /** The document id a provider file's name proves this deployment made it for, else undefined. */
  documentOf(providerFileName: string): string | undefined;
}

const LABELLED = /^gw\.(doc_[A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22})\./;

/** `key`: the provider's API key ('' for a keyless provider); `deployment`: what tells deployments apart. */
export function providerLabel(key: string, deployment: string): ProviderLabel {
  const mac = (documentId: string) =>
    createHmac('sha256', `chat-document-label\0${key}`).update(`${deployment}\0${documentId}`).digest().subarray(0, 16);
  return {
    name: (documentId, fileName) => `gw.${documentId}.${mac(documentId).toString('base64url')}.${fileName}`,
    documentOf(providerFileName) {
      const m = LABELLED.exec(providerFileName);
      if (!m) return undefined;
      // Compared as text: base64url's last character has spare bits, so two texts can decode to one MAC.
      return timingSafeEqual(Buffer.from(m[2]), Buffer.from(mac(m[1]).toString('base64url'))) ? m[1] : undefined;
    },
  };
}
