// Types of the two graphql-upload 17 modules the gateway uses (the package types itself with JSDoc in .mjs files,
// which the native compiler does not read from node_modules).

declare module 'graphql-upload/Upload.mjs' {
  import type { Readable } from 'node:stream';

  /** A file of a multipart request as its resolver receives it, once its part has begun to arrive. */
  export interface FileUpload {
    filename: string;
    /** As the client claims it: not to be trusted. */
    mimetype: string;
    encoding: string;
    /** The file's bytes as they arrive (spooled to a temporary file); fails when the request breaks off or passes the size limit. */
    createReadStream(options?: { highWaterMark?: number }): Readable;
  }

  /** What processRequest puts in the operation's variables where a file goes. */
  export default class Upload {
    promise: Promise<FileUpload>;
    file?: FileUpload;
  }
}

declare module 'graphql-upload/processRequest.mjs' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface ProcessRequestOptions {
    /** Bytes of the non-file fields (`operations`, `map`). @default 1000000 */
    maxFieldSize?: number;
    maxFileSize?: number;
    maxFiles?: number;
  }

  /**
   * Reads a GraphQL multipart request's `operations` and `map` and resolves to the operation (or batch) with an
   * `Upload` wherever `map` puts a file. Errors are http-errors (`status`, `expose`).
   */
  export default function processRequest(
    request: IncomingMessage,
    response: ServerResponse,
    options?: ProcessRequestOptions,
  ): Promise<Record<string, unknown> | Array<Record<string, unknown>>>;
}
