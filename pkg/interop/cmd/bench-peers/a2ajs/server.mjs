// bench-peers' a2a-js peer: an echo agent on @a2a-js/sdk's server, as its
// README builds one (DefaultRequestHandler, InMemoryTaskStore,
// A2AExpressApp), with the a2a-go peer's agent: every task completes at
// once with one artifact holding the text it was sent. A2A 0.3 JSON-RPC on
// POST /, the card at /.well-known/agent-card.json.
//
//   node server.mjs -addr 127.0.0.1:9003
import express from 'express';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { A2AExpressApp } from '@a2a-js/sdk/server/express';

const args = process.argv.slice(2);
const at = args.indexOf('-addr');
const addr = at >= 0 ? args[at + 1] : '127.0.0.1:9003';
const colon = addr.lastIndexOf(':');
const host = addr.slice(0, colon);
const port = Number(addr.slice(colon + 1));
if (colon < 0 || !Number.isInteger(port)) {
  console.error(`a2a-js echo: -addr ${addr}: want host:port`);
  process.exit(2);
}

const card = {
  name: 'Echo Agent',
  description: 'Completes every task at once with an artifact holding the text it was sent.',
  protocolVersion: '0.3.0',
  version: '1.0.0',
  url: `http://${addr}/`,
  preferredTransport: 'JSONRPC',
  capabilities: { streaming: false, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'echo', name: 'Echo', description: 'Returns the text of your message as an artifact.', tags: ['echo', 'test'], examples: ['hello'] }],
};

class Echo {
  async execute(ctx, bus) {
    const message = ctx.userMessage;
    const text = message.parts.filter((p) => p.kind === 'text').map((p) => p.text).join('');
    bus.publish({
      kind: 'task',
      id: ctx.taskId,
      contextId: ctx.contextId,
      status: { state: 'completed', timestamp: new Date().toISOString() },
      history: [message],
      artifacts: [{ artifactId: 'echo', name: 'echo', parts: [{ kind: 'text', text }] }],
    });
    bus.finished();
  }

  async cancelTask() {}
}

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new Echo());
new A2AExpressApp(handler).setupRoutes(express()).listen(port, host);
