#!/bin/sh
# The smallest ACP agent, for launch storms: it answers initialize, session/new and a prompt (with one chunk),
# refuses any other request, and exits when its stdin closes. Plain sh with no other program: a launch measured
# with it is the launch (and the sandbox), not the agent's own start-up. With TINY_AGENT_TURN_S set, `sleep` holds
# each turn that long before it answers (agents that overlap, for the live-agent bound).
while IFS= read -r line; do
  id=${line#*\"id\":}
  id=${id%%[,\}]*}
  case "$line" in
    *'"method":"initialize"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1,"agentCapabilities":{}}}\n' "$id" ;;
    *'"method":"session/new"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"sessionId":"tiny"}}\n' "$id" ;;
    *'"method":"session/prompt"'*)
      if [ -n "${TINY_AGENT_TURN_S:-}" ]; then sleep "$TINY_AGENT_TURN_S"; fi
      printf '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"tiny","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"ok"}}}}\n'
      printf '{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn"}}\n' "$id" ;;
    *'"id":'*'"method":'*|*'"method":'*'"id":'*)
      printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\n' "$id" ;;
  esac
done
