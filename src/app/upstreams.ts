import type { GatewayConfig, GatewayDomain } from '../config/env.js';
import type { Sandbox } from '../sandbox/server.js';
import type { ResolvedUpstream } from '../context/services.js';

/** The credential every sandbox emulator accepts. */
export const SANDBOX_CREDENTIAL = 'sandbox';

/**
 * Points every upstream without credentials at the sandbox, in place: from here on the rest of the gateway sees one
 * config and never asks which mode it is in, except where behaviour differs (Graph's caller-token fallback).
 */
export function resolveUpstreams(config: GatewayConfig, sandbox: Sandbox | undefined): ResolvedUpstream[] {
  const need = (mode: string) => {
    if (mode === 'sandbox' && !sandbox) throw new Error('an upstream is in sandbox mode but no sandbox is running');
    return sandbox!;
  };
  if (config.graph.mode === 'sandbox') {
    const s = need('sandbox');
    Object.assign(config.graph, {
      baseUrl: s.baseUrls.graph,
      authorityUrl: s.baseUrls.login,
      tenantId: SANDBOX_CREDENTIAL,
      clientId: SANDBOX_CREDENTIAL,
      clientSecret: SANDBOX_CREDENTIAL,
    });
  }
  if (config.omdb.mode === 'sandbox')
    Object.assign(config.omdb, { baseUrl: need('sandbox').baseUrls.omdb, apiKey: SANDBOX_CREDENTIAL });
  for (const chat of config.chat) {
    if (chat.mode !== 'sandbox') continue;
    const base = need('sandbox').baseUrls[chat.id as 'glm' | 'ark' | 'deepseek' | 'moonshot'];
    Object.assign(chat, { baseUrl: base, apiKey: SANDBOX_CREDENTIAL });
  }
  // Every domain's upstreams: `upstreams` (the gateway domain) answers for the whole graph, also when the domains run
  // as several instances. Those of the domains not served here are never called: `/readyz` and the log leave them out.
  const served = (domain: GatewayDomain) => config.domains.includes(domain);
  return [
    {
      id: 'graph',
      mode: config.graph.mode,
      baseUrl: `${config.graph.baseUrl}/${config.graph.apiVersion}`,
      served: served('enterprise'),
    },
    { id: 'omdb', mode: config.omdb.mode, baseUrl: config.omdb.baseUrl, served: served('titles') },
    ...config.chat.map((c) => ({ id: c.id, mode: c.mode, baseUrl: c.baseUrl, served: served('chat') })),
  ];
}
