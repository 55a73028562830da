import { startGateway } from './src/app/gateway.js';
