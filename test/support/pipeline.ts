import { loadConfig } from '../../src/config/env.js';
import { createLogger } from '../../src/observability/logger.js';
import { GatewayMetrics } from '../../src/observability/metrics.js';
import { createRedactor } from '../../src/observability/redact.js';
import { createGatewayCore } from '../../src/app/gatewayCore.js';
import type { GatewayServices } from '../../src/context/services.js';
import { OperationPipeline } from '../../src/pipeline/core.js';
import type { PipelineRule } from '../../src/pipeline/operation.js';
import type { Shutdown } from '../../src/pipeline/rules/shutdown.js';
import type { InProcessTransport } from '../../src/transports/inProcess.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { resolveUpstreams } from '../../src/app/upstreams.js';
import { MemoryState } from '../../src/state/index.js';
import { GatewayCredentials } from '../../src/upstreams/credentials.js';
import { LogCapture } from './gateway.js';

export interface PipelineHarness {
  pipeline: OperationPipeline;
  /** The in-process transport over that pipeline. */
  inProcess: InProcessTransport;
  services: GatewayServices;
  sandbox: Sandbox;
  logs: LogCapture;
  close(): Promise<void>;
}

/** The gateway's operation pipeline and upstream clients over a sandbox, without an HTTP server. */
export async function pipelineHarness(
  env: Record<string, string> = {},
  sandboxSettings = {},
): Promise<PipelineHarness> {
  const sandbox = await startSandbox({ settings: { chatTokenDelayMs: 0, ...sandboxSettings } });
  const config = loadConfig({ PORT: '0', LOG_LEVEL: 'info', ...env });
  const logs = new LogCapture();
  const redact = createRedactor(config.secrets);
  const log = createLogger({ level: config.logLevel, redact, destination: logs as never, format: config.logFormat });
  const dependencies = {
    config,
    metrics: new GatewayMetrics(),
    log,
    redact,
    state: new MemoryState(),
    credentials: new GatewayCredentials(log),
    onClose: [],
  };
  const { services, pipeline, inProcess } = await createGatewayCore({
    dependencies,
    upstreams: resolveUpstreams(config, sandbox),
  });
  return {
    pipeline,
    inProcess,
    services,
    sandbox,
    logs,
    async close() {
      await Promise.allSettled(services.onClose.map((fn) => fn()));
      await sandbox.close();
    },
  };
}

/**
 * A pipeline over the harness's schema and services with only `rules` (and `shutdown`, last) and no validation
 * rules: for a test of the pipeline's own order of stages.
 */
export function pipelineWithRules(h: PipelineHarness, rules: PipelineRule[], shutdown: Shutdown): OperationPipeline {
  return new OperationPipeline({
    schema: h.pipeline.schema,
    services: h.services,
    rules: [...rules, shutdown],
    validationRules: [],
    format: h.services.formatErrors,
    shutdown,
  });
}
