// A real MCP 2024-11-05 server for mcpstream's tests: the TypeScript SDK 1.0.4 (its newest
// protocol is 2024-11-05, so it answers `initialize` with that version whatever the client
// offers) on its HTTP+SSE SSEServerTransport: the stream at GET /sse, the calls POSTed to the
// endpoint it names (/messages?sessionId=...). Two tools, `add` and `echo`.
//
// Usage: node server.mjs SDK_DIR  (SDK_DIR: where scripts/install-legacy-server.sh installed
// the SDK). Listens on 127.0.0.1 at a free port and prints "PORT <n>" once listening; stops when
// its standard input closes (the test that started it went away) or after 120 s.
import http from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";

const sdkDir = process.argv[2];
const sdk = (file) =>
  import(pathToFileURL(path.join(sdkDir, "node_modules/@modelcontextprotocol/sdk/dist", file)).href);
const { Server } = await sdk("server/index.js");
const { SSEServerTransport } = await sdk("server/sse.js");
const { ListToolsRequestSchema, CallToolRequestSchema } = await sdk("types.js");

const tools = [
  {
    name: "add",
    description: "Add two numbers",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
  },
  {
    name: "echo",
    description: "Echo a text",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
];

function newServer() {
  const server = new Server({ name: "ts-sdk-2024", version: "1.0.4" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = request.params.arguments ?? {};
    if (request.params.name === "add") {
      return { content: [{ type: "text", text: String(Number(args.a) + Number(args.b)) }] };
    }
    if (request.params.name === "echo") {
      return { content: [{ type: "text", text: String(args.text) }] };
    }
    return { content: [{ type: "text", text: `unknown tool ${request.params.name}` }], isError: true };
  });
  return server;
}

const transports = new Map();
const httpServer = http.createServer(async (req, res) => {
  const url = new URL(req.url, "http://127.0.0.1");
  if (req.method === "GET" && url.pathname === "/sse") {
    const transport = new SSEServerTransport("/messages", res);
    transports.set(transport.sessionId, transport);
    res.on("close", () => transports.delete(transport.sessionId));
    await newServer().connect(transport);
    return;
  }
  if (req.method === "POST" && url.pathname === "/messages") {
    const transport = transports.get(url.searchParams.get("sessionId"));
    if (transport === undefined) {
      res.writeHead(404).end("no such session");
      return;
    }
    await transport.handlePostMessage(req, res).catch(() => {});
    return;
  }
  res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
});

httpServer.listen(0, "127.0.0.1", () => {
  process.stdout.write(`PORT ${httpServer.address().port}\n`);
});
const stop = () => process.exit(0);
process.stdin.on("end", stop);
process.stdin.on("close", stop);
process.stdin.resume();
setTimeout(stop, 120_000).unref();
