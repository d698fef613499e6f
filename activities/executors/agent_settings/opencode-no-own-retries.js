// The office's own OpenCode plugin, loaded through OPENCODE_CONFIG_CONTENT (activities/executors/agents.py).
// OpenCode retries a retryable provider failure up to five more times by itself, obeying any Retry-After, and no
// setting turns that off (session/retry.ts RETRY_MAX_RETRIES); the office's decider must make the only retries.
// The first time a session enters its retry status, this says why on stderr, one line the office reads, and aborts
// the session, so the turn ends after one provider call and the office classifies what the provider said.
export const OfficeNoOwnRetries = async ({ client }) => ({
  event: async ({ event }) => {
    if (event.type !== "session.status" || event.properties?.status?.type !== "retry") return
    const id = event.properties.sessionID
    const message = String(event.properties.status.message ?? "")
    process.stderr.write("OFFICE_AGENT_RETRY_STOPPED " + JSON.stringify({ message }) + "\n")
    try {
      await client.session.abort({ path: { id }, sessionID: id })
    } catch (err) {
      process.stderr.write("office: could not stop the agent's own retry: " + String(err) + "\n")
    }
  },
})
