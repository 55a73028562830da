// Types of the two apollo-upload-client 19 modules the page uses (the package types itself with JSDoc in .mjs files,
// which the native compiler does not read from node_modules).

declare module 'apollo-upload-client/UploadHttpLink.mjs' {
  import { ApolloLink } from '@apollo/client';

  /** A terminating link that sends an operation with files as a GraphQL multipart request, and any other as HttpLink does. */
  export default class UploadHttpLink extends ApolloLink {
    constructor(options?: {
      uri?: string;
      headers?: Record<string, string>;
      credentials?: string;
      fetchOptions?: RequestInit;
      includeExtensions?: boolean;
    });
  }
}

declare module 'apollo-upload-client/isExtractableFile.mjs' {
  /** Whether a value is a file the link sends as a multipart part (a File, Blob or ReactNativeFile). */
  export default function isExtractableFile(value: unknown): value is Blob;
}
