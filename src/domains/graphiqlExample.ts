/**
 * One tab GraphiQL opens on a first visit; each domain publishes its own. A tab holds the operations of one topic:
 * GraphiQL's Run button offers each of them by name (short names: the tab is titled by the first). Every operation
 * names its own variables, so that the tab's one variables JSON serves all of them.
 */
export interface GraphiqlExample {
  /** Shown as a comment on the tab's first line: what the tab is about and how to use it. */
  title: string;
  /** One or more named operations, each with a comment line above it saying what it shows. */
  query: string;
  /** The variables editor's content, JSON text: the variables of every operation of the tab. */
  variables?: string;
}
