import { useLazyQuery } from '@apollo/client/react';
import { useState, type FormEvent } from 'react';
import { SearchTitlesQuery } from './operations.js';

/** Title search: the page of results shows at once, each title's plot and ratings fill in as their deferred parts arrive. */
export function TitleSearch() {
  const [text, setText] = useState('star');
  const [search, { data, error, loading, called }] = useLazyQuery(SearchTitlesQuery);
  const page = data?.searchTitles;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (text.trim()) void search({ variables: { query: text.trim() } }).catch(() => undefined);
  };

  return (
    <section className="panel" aria-labelledby="titles-heading">
      <h2 id="titles-heading">Titles</h2>
      <form onSubmit={submit} className="row">
        <input aria-label="Search titles" value={text} onChange={(event) => setText(event.target.value)} />
        <button type="submit">Search</button>
      </form>
      {loading && !page && <p className="muted">Searching…</p>}
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      {called && page && <p className="muted">{page.totalResults} results</p>}
      <ul className="titles" data-testid="titles">
        {page?.items.map((item, index) =>
          item ? (
            <li key={item.imdbId} data-imdb-id={item.imdbId}>
              <div>
                <strong>{item.title}</strong>{' '}
                <span className="muted">
                  {item.year} · {item.type.toLowerCase()}
                </span>
              </div>
              {item.plot === undefined ? (
                <p className="muted pending" data-testid="details-pending">
                  Loading details…
                </p>
              ) : (
                <div data-testid="details">
                  <p>{item.plot ?? 'No plot on record.'}</p>
                  <p className="muted">
                    {item.imdbRating != null ? `IMDb ${item.imdbRating}` : 'No IMDb rating'}
                    {item.ratings
                      ?.filter((rating) => rating.source !== 'Internet Movie Database')
                      .map((rating) => ` · ${rating.source} ${rating.value}`)}
                  </p>
                </div>
              )}
            </li>
          ) : (
            <li key={`missing-${index}`} className="error">
              This title could not be looked up.
            </li>
          ),
        )}
      </ul>
    </section>
  );
}
