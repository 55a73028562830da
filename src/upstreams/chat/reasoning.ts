/** `thinking: {"type": "enabled" | "disabled"}`: the switch all four providers take (docs/upstreams.md §3.6). */
export function thinkingSwitch(body: Record<string, unknown>, enabled: boolean): void {
  body.thinking = { type: enabled ? 'enabled' : 'disabled' };
}
