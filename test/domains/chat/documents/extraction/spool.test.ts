import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Spool, sweepLeftovers } from '../../../../../src/domains/chat/documents/extraction/spool.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'spool-test-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** The pid of a process that has ended. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim());
}

describe('the spool', () => {
  it("keeps an upload in a file of its own, in a folder of this gateway's, until it is removed", async () => {
    const spool = new Spool(root);
    const path = await spool.write(Readable.from([Buffer.from('first part, '), Buffer.from('second part')]));
    expect(await readFile(path, 'utf8')).toBe('first part, second part');
    expect(path.startsWith(join(root, `${process.pid}-`))).toBe(true);
    expect(await spool.files()).toHaveLength(1);
    await spool.remove(path);
    expect(await spool.files()).toEqual([]);
    await spool.close();
    expect(await readdir(root)).toEqual([]);
  });

  it('leaves no file behind when the upload breaks off', async () => {
    const spool = new Spool(root);
    const broken = new Readable({ read() {} });
    broken.push('some bytes');
    setTimeout(() => broken.destroy(new Error('the upload broke off')), 10);
    await expect(spool.write(broken)).rejects.toThrow('the upload broke off');
    expect(await spool.files()).toEqual([]);
    await spool.close();
  });

  it('refuses an upload that broke off while the spool was opening its folder, with no uncaught error and no file', async () => {
    const spool = new Spool(root);
    const broken = new Readable({ read() {} });
    const writing = spool.write(broken);
    // Before the folder exists (the spool opens it on its first write): nothing listens to the stream yet but the spool.
    broken.destroy(new Error('the upload broke off'));
    await expect(writing).rejects.toThrow('the upload broke off');
    expect(await spool.files()).toEqual([]);
    await spool.close();
  });

  it("removes at start-up what a gateway that died left, never a running one's", async () => {
    const left = join(root, `${deadPid()}-abc123`);
    const running = join(root, `${process.pid}-def456`);
    for (const folder of [left, running]) {
      await mkdir(folder);
      await writeFile(join(folder, 'waiting'), 'bytes of an upload');
    }
    expect(await sweepLeftovers(root)).toEqual([`${left.slice(root.length + 1)}`]);
    expect(await readdir(root)).toEqual([running.slice(root.length + 1)]);
    await rm(running, { recursive: true });
  });
});
