/**
 * Removes secrets from text before it leaves the process (responses, errors, logs, metric labels): the configured
 * values, and the shapes secrets take wherever they come from, the gateway's own or an upstream's (an error page or
 * a provider's body quoting a connection string or a key):
 * - key-like URL parameters (`?apikey=…`, `&access_token=…`: OMDb's key rides in its URLs);
 * - bearer and basic credentials (`Bearer eyJ…`, `Basic dXNl…`);
 * - a URL's userinfo password (`postgres://admin:hunter2@db`);
 * - `name=value` and `"name": "value"` pairs whose name ends in key, secret, token, password (`api_key=…`,
 *   `"client_secret": "…"`), escaped quotes included, as a JSON log line carries a body.
 */
export function createRedactor(secrets: readonly string[]): (text: string) => string {
  const escaped = [...new Set(secrets)]
    .filter((s) => s.length >= 4)
    .sort((a, b) => b.length - a.length)
    .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const values = escaped.length ? new RegExp(escaped.join('|'), 'g') : undefined;
  return (text: string) => {
    let out = text.replace(/([?&](?:apikey|api_key|key|client_secret|access_token)=)[^&#\s"']*/gi, '$1[REDACTED]');
    out = out.replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, '$1 [REDACTED]');
    out = out.replace(USERINFO, '$1:[REDACTED]@');
    out = out.replace(PAIR, '$1$2[REDACTED]');
    if (values) out = out.replace(values, '[REDACTED]');
    return out;
  };
}

/** `scheme://user:password@`: the password goes, the user and host stay (they say which service). */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@"'\\]*):[^\s/@"'\\]+@/gi;

/**
 * A secret-named pair: the name (ending in key, secret, token, password, passwd or pwd), `=` or `:` with optional
 * (escaped) quotes, and a value of 6 or more characters with a letter in it (so `max_tokens: 4096` stays).
 */
const PAIR =
  /\b([\w-]*(?:key|secret|token|password|passwd|pwd))(\\?["']?\s*[=:]\s*\\?["']?)(?=[^\s"'\\&,;}<]*[A-Za-z])[^\s"'\\&,;}<]{6,}/gi;
