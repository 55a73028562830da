/** One operation GraphiQL opens as a tab on a first visit; each domain publishes its own. */
export interface GraphiqlExample {
  /** Shown as a comment on the tab's first line. */
  title: string;
  query: string;
  /** The variables editor's content, JSON text. */
  variables?: string;
}
