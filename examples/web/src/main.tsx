import { ApolloProvider } from '@apollo/client/react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ChatWindow } from './ChatWindow.js';
import { createApolloClient, gatewayUrl } from './client.js';
import { ConnectionHint } from './connection.js';
import { HealthBoard } from './HealthBoard.js';
import { TitleSearch } from './TitleSearch.js';
import './styles.css';

const client = createApolloClient();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ApolloProvider client={client}>
      <header>
        <h1>Operations desk</h1>
        <span className="muted">gateway: {gatewayUrl}</span>
      </header>
      <ConnectionHint />
      <main>
        <HealthBoard />
        <TitleSearch />
        <ChatWindow />
      </main>
    </ApolloProvider>
  </StrictMode>,
);
