/**
 * Removes secrets from text before it leaves the process (responses, errors, logs, metric labels).
 * Keys ride in URLs (OMDb `apikey=`) and headers, so both the configured values and the parameter shapes are masked.
 */
export function createRedactor(secrets: readonly string[]): (text: string) => string {
  const escaped = [...new Set(secrets)]
    .filter((s) => s.length >= 4)
    .sort((a, b) => b.length - a.length)
    .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const values = escaped.length ? new RegExp(escaped.join('|'), 'g') : undefined;
  return (text: string) => {
    let out = text.replace(/([?&](?:apikey|api_key|key|client_secret|access_token)=)[^&#\s"']*/gi, '$1[REDACTED]');
    out = out.replace(/\b(Bearer)\s+[A-Za-z0-9._~+/=-]{8,}/g, '$1 [REDACTED]');
    if (values) out = out.replace(values, '[REDACTED]');
    return out;
  };
}
