import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** The folder under the system's temporary folder where every gateway process keeps its spool. */
export const SPOOL_ROOT = join(tmpdir(), 'gateway-chat-documents');

/** Whether a process of this id runs (on this host). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Files waiting for (or being read by) an extractor, on disk rather than in the gateway's memory: one folder per
 * gateway (`<pid>-<random>` under {@link SPOOL_ROOT}, so gateways and tests on one host never touch each other's), a
 * file per upload, removed when its extraction ends, whichever way. Folders a gateway that died left behind (its pid
 * no longer runs) are removed when the next one opens its spool.
 */
export class Spool {
  private folder: Promise<string> | undefined;

  constructor(private readonly root = SPOOL_ROOT) {}

  /** Copies the upload into a new spool file (streamed: never whole in memory); its path. */
  async write(stream: Readable): Promise<string> {
    // An upload can break off while the folder is being opened, before the pipeline listens: its error is held here
    // and refused below, rather than thrown as an 'error' event nobody listens to (CI at be57dd6: an uncaught error).
    const hold = () => undefined;
    stream.on('error', hold);
    let path: string;
    try {
      path = join(await this.open(), randomBytes(12).toString('hex'));
    } finally {
      stream.off('error', hold);
    }
    if (stream.errored) throw stream.errored;
    try {
      await pipeline(stream, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
    } catch (error) {
      await this.remove(path);
      throw error;
    }
    return path;
  }

  async remove(path: string): Promise<void> {
    await rm(path, { force: true });
  }

  /** The files in this gateway's spool now. */
  async files(): Promise<string[]> {
    return this.folder ? readdir(await this.folder) : [];
  }

  /** Removes this gateway's spool folder. */
  async close(): Promise<void> {
    if (this.folder) await rm(await this.folder, { recursive: true, force: true });
  }

  private open(): Promise<string> {
    this.folder ??= (async () => {
      await mkdir(this.root, { recursive: true, mode: 0o700 });
      await sweepLeftovers(this.root);
      const folder = join(this.root, `${process.pid}-${randomBytes(6).toString('hex')}`);
      await mkdir(folder, { mode: 0o700 });
      return folder;
    })();
    return this.folder;
  }
}

/** Removes the spool folders of gateways that no longer run. */
export async function sweepLeftovers(root = SPOOL_ROOT): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(root);
  } catch {
    return [];
  }
  const gone = entries.filter((name) => {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    return pid > 0 && !alive(pid);
  });
  await Promise.all(gone.map((name) => rm(join(root, name), { recursive: true, force: true })));
  return gone;
}
