import { GraphQLError, GraphQLScalarType } from 'graphql';
import Upload, { type FileUpload } from 'graphql-upload/Upload.mjs';

export type { FileUpload } from 'graphql-upload/Upload.mjs';

const HOW =
  'send the file in a GraphQL multipart request (POST /graphql, Content-Type: multipart/form-data with the "operations" and "map" fields and an Apollo-Require-Preflight header), as Apollo Client\'s and urql\'s upload links do';

/**
 * The `Upload` scalar of the GraphQL multipart request specification: a variable the multipart request filled with a
 * file (graphql-upload's `Upload`) becomes the promise of that file; anything else (a JSON value, a WebSocket
 * message, a literal) is refused with what to send instead.
 */
export const UploadScalar = new GraphQLScalarType<Promise<FileUpload>, never>({
  name: 'Upload',
  description: 'A file of a GraphQL multipart request.',
  parseValue(value) {
    if (value instanceof Upload) return value.promise;
    throw new GraphQLError(`Upload value invalid: ${HOW}.`);
  },
  parseLiteral(node) {
    throw new GraphQLError(`Upload literal unsupported: give the file as a variable and ${HOW}.`, { nodes: node });
  },
  serialize() {
    throw new GraphQLError('Upload serialization unsupported: a file is only ever an argument.');
  },
});
