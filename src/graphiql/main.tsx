import './monacoWorkers.js';
import 'graphiql/style.css';
import './streamText.css';
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import { createClient } from 'graphql-ws';
import { createRoot } from 'react-dom/client';
import { loadDefaultTabs } from './examples.js';
import { onStreamStart, streamTextPlugin, watchingChatStreams } from './streamText.js';

const graphqlPath = '/graphql';

// Same origin for both transports, so the page works behind any host name or TLS terminator.
const wsUrl = `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}${graphqlPath}`;

// Chat streams are also added up into the Stream plugin, which shows the answer whole (streamText.tsx).
const fetcher = watchingChatStreams(
  createGraphiQLFetcher({
    url: graphqlPath,
    wsClient: createClient({ url: wsUrl, lazy: true }),
  }),
);

const container = document.getElementById('graphiql');
if (!container) throw new Error('index.html has no #graphiql element to mount GraphiQL into');

const defaultTabs = await loadDefaultTabs();

// The Stream plugin opens when a chat stream starts; the user may close it again. GraphiQL shows a plugin's pane only
// through its sidebar button (setting `visiblePlugin` leaves the pane collapsed), so the start presses that button.
onStreamStart(() =>
  document
    .querySelector<HTMLButtonElement>(`.graphiql-sidebar button[aria-label="Show ${streamTextPlugin.title}"]`)
    ?.click(),
);

function App() {
  return (
    <GraphiQL
      fetcher={fetcher}
      defaultTabs={defaultTabs}
      plugins={[streamTextPlugin]}
      isHeadersEditorEnabled
      // Callers paste `Authorization: Bearer …` here; never keep tokens in localStorage.
      shouldPersistHeaders={false}
    />
  );
}

createRoot(container).render(<App />);
