import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Upload from 'graphql-upload/Upload.mjs';
import { readUploadRequest } from '../../../src/transports/http/upload.js';
import { ownSpool } from '../../support/documents.js';

// A multipart request's temporary files (graphql-upload's fs-capacitor copies in TMPDIR) outlive no response.
const spooled = ownSpool();

describe('readUploadRequest', () => {
  let port = 0;
  /** The file of the last request, once its part has begun to arrive. */
  let arrived: Promise<unknown> = Promise.resolve();
  const server = createServer((req, res) => {
    // Answers as soon as the operation is read, as a refusal made from the fields alone does: before the file part.
    void readUploadRequest(req, res, 1 << 20).then((operation) => {
      res.end('answered');
      arrived = ((operation as { variables: { file: Upload } }).variables.file as Upload).promise;
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('releases a file that arrives after the response closed', async () => {
    // graphql-upload releases, when the response closes, the files that have arrived by then; one whose part came
    // later was left in TMPDIR for good (CI at e998707, Node 20: a refused upload's copy still there after 10 s).
    const boundary = '----late-file-5c1e';
    const fields = [
      `--${boundary}\r\nContent-Disposition: form-data; name="operations"\r\n\r\n${JSON.stringify({ query: 'mutation($file: Upload!) { uploadChatDocument(file: $file) { id } }', variables: { file: null } })}\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="map"\r\n\r\n{"0":["variables.file"]}\r\n`,
      // The next delimiter ends the map field; the file part's headers come later.
      `--${boundary}`,
    ].join('');
    const file = `\r\nContent-Disposition: form-data; name="0"; filename="late.txt"\r\nContent-Type: text/plain\r\n\r\n${'z'.repeat(3000)}\r\n--${boundary}--\r\n`;
    const length = Buffer.byteLength(fields + file);
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('error', () => undefined);
    const answered = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (c: Buffer) => {
        text += c.toString('utf8');
        if (text.endsWith('answered')) resolve(text);
      });
    });
    socket.write(
      `POST /graphql HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: multipart/form-data; boundary=${boundary}\r\ncontent-length: ${length}\r\n\r\n${fields}`,
    );
    expect(await answered).toMatch(/^HTTP\/1\.1 200/);
    // The file comes once the response is over: spooled as it arrives, then released (its copy deleted).
    socket.write(file);
    const { capacitor } = (await arrived) as { capacitor: { destroyed: boolean } };
    for (let i = 0; i < 250 && !(capacitor.destroyed && spooled().length === 0); i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    socket.destroy();
    expect(capacitor.destroyed).toBe(true);
    expect(spooled()).toEqual([]);
  });
});
