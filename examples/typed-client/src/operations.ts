import { graphql } from './gql/index.js';

/** Each service's status with its newest open issues: one Graph request behind the gateway. */
export const ServiceHealthDocument = graphql(`
  query ExampleServiceHealth($first: Int!) {
    admin {
      serviceAnnouncement {
        healthOverviews(first: $first, orderBy: [{ field: SERVICE, direction: ASC }]) {
          nodes {
            id
            service
            status
            issues(first: 2, orderBy: [{ field: START_DATE_TIME, direction: DESC }]) {
              nodes { id title isResolved }
            }
          }
        }
      }
    }
  }
`);

/** One title by IMDb id; `null` when OMDb does not know it. */
export const TitleDocument = graphql(`
  query ExampleTitle($imdbId: ID!) {
    title(imdbId: $imdbId) { imdbId title year type runtimeMinutes genres imdbRating }
  }
`);

/** A whole chat completion, with the provider and model that served it. */
export const CompletionDocument = graphql(`
  mutation ExampleCompletion($input: ChatCompletionInput!) {
    createChatCompletion(input: $input) { provider model content usage { totalTokens } }
  }
`);
