// A small MCP server on the TypeScript SDK v2 (@modelcontextprotocol/server with
// @modelcontextprotocol/node), a peer of mcpstream's tests (tests/peers).
//
// It listens on 127.0.0.1 on a port the system picks and prints one line,
// "listening on http://127.0.0.1:PORT/mcp", once it accepts connections. 2026-07-28 requests go
// to the SDK's per-request handler (createMcpHandler); handshake-era ones (isLegacyRequest) to
// sessions of NodeStreamableHTTPServerTransport, as the SDK's docs compose the two eras.
// Resources come in pages of two.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import { createMcpHandler, inputRequired, inputResponse, isLegacyRequest, Server } from '@modelcontextprotocol/server';

const ITEMS = 5;
const PAGE = 2;
const NAMES = ['Ada', 'Alan', 'Grace'];

const text = (s) => ({ content: [{ type: 'text', text: s }] });
const string = { type: 'string' };
const number = { type: 'number' };
const tool = (name, description, properties) => ({ name, description, inputSchema: { type: 'object', properties } });
const TOOLS = [
    tool('echo', 'Echo the text.', { text: string }),
    tool('progress', 'Report steps of progress, then answer.', { steps: number }),
    tool('big', 'A text of size bytes.', { size: number }),
    tool('fail', 'An error result.', {}),
    tool('slow', 'A progress notification after first_s, the answer after delay_s.', { first_s: number, delay_s: number }),
    tool('log', 'Send a log message, then answer.', { level: string, text: string }),
    tool('touch', 'Announce that the resource uri changed.', { uri: string }),
    tool('sample', "Ask the client's model.", { text: string }),
    tool('elicit', 'Ask the user for a name.', {}),
    tool('roots', "List the client's roots.", {})
];

async function progress(request, ctx, done, total, message) {
    const token = request.params._meta?.progressToken;
    if (token !== undefined) {
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: done, total, message } });
    }
}

const SAMPLING = { maxTokens: 10, messages: [{ role: 'user', content: { type: 'text', text: 'ping' } }] };
const ELICITATION = {
    mode: 'form',
    message: 'Your name?',
    requestedSchema: { type: 'object', properties: { name: string }, required: ['name'] }
};

// At 2026-07-28 a server asks the client through the result (inputRequired): the client answers
// and retries the call with the answers in inputResponses.
function modernServerRequest(name, args, ctx) {
    const got = inputResponse(ctx.mcpReq.inputResponses, name);
    switch (name) {
        case 'sample':
            if (got.kind === 'sampling') return text(`sampled: ${got.result.content.text}`);
            return inputRequired({ inputRequests: { sample: inputRequired.createMessage({ ...SAMPLING, messages: [{ role: 'user', content: { type: 'text', text: args.text } }] }) } });
        case 'elicit':
            if (got.kind === 'elicit') return text(`elicited: ${got.action} ${got.content?.name}`);
            return inputRequired({ inputRequests: { elicit: inputRequired.elicit(ELICITATION) } });
        default:
            if (got.kind === 'roots') return text(`roots: ${got.roots.map((root) => root.uri).join(' ')}`);
            return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
    }
}

async function callTool(request, ctx, modern) {
    const args = request.params.arguments ?? {};
    if (modern && ['sample', 'elicit', 'roots'].includes(request.params.name)) {
        return modernServerRequest(request.params.name, args, ctx);
    }
    switch (request.params.name) {
        case 'echo':
            return text(args.text);
        case 'progress':
            for (let i = 1; i <= args.steps; i++) await progress(request, ctx, i, args.steps, `step ${i}`);
            return text(`done ${args.steps}`);
        case 'big':
            return text('x'.repeat(args.size));
        case 'fail':
            return { ...text('failed on purpose'), isError: true };
        case 'slow': {
            const sleep = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));
            await sleep(args.first_s ?? 0);
            await progress(request, ctx, 0, 1, 'started');
            await sleep(args.delay_s - (args.first_s ?? 0));
            return text('slow done');
        }
        case 'log':
            await ctx.mcpReq.log(args.level, args.text, 'peer');
            return text('logged');
        case 'touch':
            await ctx.mcpReq.notify({ method: 'notifications/resources/updated', params: { uri: args.uri } });
            return text('touched');
        case 'sample': {
            const result = await ctx.mcpReq.requestSampling({
                ...SAMPLING,
                messages: [{ role: 'user', content: { type: 'text', text: args.text } }]
            });
            return text(`sampled: ${result.content.text}`);
        }
        case 'elicit': {
            const result = await ctx.mcpReq.elicitInput(ELICITATION);
            return text(`elicited: ${result.action} ${result.content?.name}`);
        }
        case 'roots': {
            const result = await ctx.mcpReq.send({ method: 'roots/list' });
            return text(`roots: ${result.roots.map((root) => root.uri).join(' ')}`);
        }
        default:
            throw new Error(`no tool ${request.params.name}`);
    }
}

// One server per session (handshake era) or per request (2026-07-28, `modern`).
function newServer(modern) {
    const server = new Server(
        { name: 'peer-ts', version: '1.0.0' },
        { capabilities: { tools: {}, prompts: {}, resources: { subscribe: true }, completions: {}, logging: {} } }
    );
    server.setRequestHandler('tools/list', () => ({ tools: TOOLS }));
    server.setRequestHandler('tools/call', (request, ctx) => callTool(request, ctx, modern));
    server.setRequestHandler('resources/list', (request) => {
        const start = Number(request.params?.cursor ?? 0);
        const end = Math.min(start + PAGE, ITEMS);
        const resources = [];
        for (let i = start; i < end; i++) resources.push({ uri: `peer://item/${i}`, name: `item-${i}`, mimeType: 'text/plain' });
        return end < ITEMS ? { resources, nextCursor: String(end) } : { resources };
    });
    server.setRequestHandler('resources/read', (request) => {
        const uri = request.params.uri;
        return { contents: [{ uri, mimeType: 'text/plain', text: `item ${uri.slice('peer://item/'.length)}` }] };
    });
    server.setRequestHandler('resources/subscribe', () => ({}));
    server.setRequestHandler('resources/unsubscribe', () => ({}));
    server.setRequestHandler('prompts/list', () => ({
        prompts: [{ name: 'greet', description: 'Greet someone.', arguments: [{ name: 'who', required: true }] }]
    }));
    server.setRequestHandler('prompts/get', (request) => ({
        messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${request.params.arguments?.who}!` } }]
    }));
    server.setRequestHandler('completion/complete', (request) => {
        const values = NAMES.filter((name) => name.startsWith(request.params.argument.value));
        return { completion: { values, total: values.length } };
    });
    server.setRequestHandler('logging/setLevel', () => ({}));
    return server;
}

const modern = toNodeHandler(createMcpHandler(() => newServer(true), { legacy: 'reject' }));
const sessions = new Map();

async function readBody(req) {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const raw = Buffer.concat(chunks).toString('utf8');
    return raw ? JSON.parse(raw) : undefined;
}

async function legacy(req, res, body) {
    const id = req.headers['mcp-session-id'];
    let transport = id ? sessions.get(id) : undefined;
    if (!transport) {
        if (id || req.method !== 'POST') {
            res.writeHead(404).end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
            return;
        }
        transport = new NodeStreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (sessionId) => sessions.set(sessionId, transport)
        });
        transport.onclose = () => sessions.delete(transport.sessionId);
        await newServer(false).connect(transport);
    }
    await transport.handleRequest(req, res, body);
}

const http = createServer(async (req, res) => {
    try {
        if (!req.url.startsWith('/mcp')) {
            res.writeHead(404).end();
            return;
        }
        const body = req.method === 'POST' ? await readBody(req) : undefined;
        if (await isLegacyRequest(await toWebRequest(req, body), body)) {
            await legacy(req, res, body);
        } else {
            await modern(req, res, body);
        }
    } catch (error) {
        console.error(error);
        if (!res.headersSent) res.writeHead(500).end();
    }
});
http.listen(0, '127.0.0.1', () => {
    console.log(`listening on http://127.0.0.1:${http.address().port}/mcp`);
});
