// The bench workload on the TypeScript SDK, either generation: echo(text), sleep(ms) with started /
// completed / cancelled counters, and sleep_stats(), the same tools as plugins/bench and
// bench/peers/sdk_server.py, served the way the SDK's own examples serve them.
//
//   node server.mjs --sdk 1|2                                      # stdio
//   node server.mjs --sdk 1|2 --http PORT [--stateless]            # Streamable HTTP on 127.0.0.1:PORT/mcp
//
// --sdk 1 is @modelcontextprotocol/sdk (McpServer); --sdk 2 the split packages, @modelcontextprotocol/server
// with the Node adapter @modelcontextprotocol/node.  Over HTTP, stateful (the default) keeps one server and
// transport per session, as the SDK's examples do; --stateless makes a server and transport per request.
// Nothing is logged per request.

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import * as z from 'zod';

const { values } = parseArgs({
    options: {
        sdk: { type: 'string', default: '1' },
        http: { type: 'string' },
        stateless: { type: 'boolean', default: false }
    }
});

// What differs between the generations: where the classes live, how a tool's schema is written,
// where a handler finds its cancellation signal.
async function generation(which) {
    if (which === '1') {
        const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
        const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
        const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
        const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');
        return {
            name: 'typescript-sdk-1',
            McpServer,
            StdioServerTransport,
            HttpTransport: StreamableHTTPServerTransport,
            isInitializeRequest,
            schema: shape => shape,
            signal: extra => extra.signal
        };
    }
    if (which === '2') {
        const { McpServer, isInitializeRequest } = await import('@modelcontextprotocol/server');
        const { StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
        const { NodeStreamableHTTPServerTransport } = await import('@modelcontextprotocol/node');
        return {
            name: 'typescript-sdk-2',
            McpServer,
            StdioServerTransport,
            HttpTransport: NodeStreamableHTTPServerTransport,
            isInitializeRequest,
            schema: shape => z.object(shape),
            signal: ctx => ctx.mcpReq.signal
        };
    }
    process.stderr.write(`--sdk must be 1 or 2, not ${which}\n`);
    process.exit(2);
}

const sdk = await generation(values.sdk);
const stats = { started: 0, completed: 0, cancelled: 0 };
const text = value => ({ content: [{ type: 'text', text: value }] });

function sleepFor(ms, signal) {
    return new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        signal?.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(new Error('cancelled'));
        });
    });
}

function benchServer() {
    const server = new sdk.McpServer({ name: sdk.name, version: '1' });
    const readOnly = { readOnlyHint: true };
    server.registerTool(
        'echo',
        { description: 'Return the text unchanged.', inputSchema: sdk.schema({ text: z.string() }), annotations: readOnly },
        async ({ text: value }) => text(value)
    );
    server.registerTool(
        'sleep',
        {
            description: 'Sleep for ms milliseconds, counting calls started, completed and cancelled.',
            inputSchema: sdk.schema({ ms: z.number().int() }),
            annotations: readOnly
        },
        async ({ ms }, extra) => {
            stats.started += 1;
            try {
                await sleepFor(ms, sdk.signal(extra));
            } catch (error) {
                stats.cancelled += 1;
                throw error;
            }
            stats.completed += 1;
            return text(`slept ${ms} ms`);
        }
    );
    server.registerTool(
        'sleep_stats',
        { description: 'The sleep counters as JSON text.', annotations: readOnly },
        async () => text(JSON.stringify(stats))
    );
    return server;
}

async function readJson(req) {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks).toString();
    return body ? JSON.parse(body) : undefined;
}

function refuse(res, status, message) {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

// Stateful: one transport (and server) per session, found by its Mcp-Session-Id.
const sessions = new Map();

async function stateful(req, res) {
    const id = req.headers['mcp-session-id'];
    if (id !== undefined) {
        const transport = sessions.get(id);
        if (transport === undefined) return refuse(res, 404, 'Session not found');
        return transport.handleRequest(req, res, req.method === 'POST' ? await readJson(req) : undefined);
    }
    if (req.method !== 'POST') return refuse(res, 400, 'Bad Request: No valid session ID provided');
    const body = await readJson(req);
    if (!sdk.isInitializeRequest(body)) return refuse(res, 400, 'Bad Request: No valid session ID provided');
    const transport = new sdk.HttpTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: sessionId => sessions.set(sessionId, transport)
    });
    transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await benchServer().connect(transport);
    await transport.handleRequest(req, res, body);
}

// Stateless: a server and a transport for each request, closed with its response.
async function stateless(req, res) {
    if (req.method !== 'POST') return refuse(res, 405, 'Method not allowed.');
    const server = benchServer();
    const transport = new sdk.HttpTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
        transport.close();
        server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, await readJson(req));
}

if (values.http === undefined) {
    await benchServer().connect(new sdk.StdioServerTransport());
} else {
    const port = Number(values.http);
    const handle = values.stateless ? stateless : stateful;
    createServer((req, res) => {
        if (req.url !== '/mcp') return refuse(res, 404, 'Not found');
        handle(req, res).catch(error => {
            if (res.headersSent) return;
            if (error instanceof SyntaxError) refuse(res, 400, `Parse error: ${error.message}`);
            else refuse(res, 500, `Internal error: ${error.message}`);
        });
    }).listen(port, '127.0.0.1');
}
