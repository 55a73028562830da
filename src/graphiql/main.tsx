import './monacoWorkers.js';
import 'graphiql/style.css';
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import { createClient } from 'graphql-ws';
import { createRoot } from 'react-dom/client';
import { loadDefaultTabs } from './examples.js';

const graphqlPath = '/graphql';

// Same origin for both transports, so the page works behind any host name or TLS terminator.
const wsUrl = `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}${graphqlPath}`;

const fetcher = createGraphiQLFetcher({
  url: graphqlPath,
  wsClient: createClient({ url: wsUrl, lazy: true }),
});

const container = document.getElementById('graphiql');
if (!container) throw new Error('index.html has no #graphiql element to mount GraphiQL into');

const defaultTabs = await loadDefaultTabs();

createRoot(container).render(
  <GraphiQL
    fetcher={fetcher}
    defaultTabs={defaultTabs}
    isHeadersEditorEnabled
    // Callers paste `Authorization: Bearer …` here; never keep tokens in localStorage.
    shouldPersistHeaders={false}
  />,
);
