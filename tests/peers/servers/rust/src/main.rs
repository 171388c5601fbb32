//! A small MCP server on the Rust SDK (`rmcp`), a peer of mcpstream's tests (tests/peers).
//!
//! It listens on 127.0.0.1 on a port the system picks and prints one line,
//! `listening on http://127.0.0.1:PORT/mcp`, once it accepts connections. Sessions are kept
//! (rmcp's `legacy_session_mode`) for the handshake era; 2026-07-28 is served statelessly.
//! Results are built from JSON (the SDK's model types are non-exhaustive), and every list of
//! resources comes in pages of two.
#![allow(deprecated)] // sampling, roots and logging are deprecated by the 2026-07-28 spec

use std::io::Write;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    ElicitRequestParams, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    InputRequiredResult, ListPromptsResult, ListResourcesResult, ListToolsResult,
    LoggingMessageNotificationParam, PaginatedRequestParams, ProgressNotificationParam,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    ServerCapabilities, ServerConfig, SetLevelRequestParams, SubscribeRequestParams,
    SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::{
    session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{json, Value};

const ITEMS: usize = 5;
const PAGE: usize = 2;
const NAMES: [&str; 3] = ["Ada", "Alan", "Grace"];

/// A value of any of the SDK's model types, from its JSON.
fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("a well-formed model value")
}

/// A result from its JSON; `resultType` is added (rmcp's deserialized results leave it out,
/// and 2026-07-28 requires it; the SDK drops it for the handshake era).
fn result<T: serde::de::DeserializeOwned>(mut value: Value) -> T {
    value["resultType"] = json!("complete");
    from_json(value)
}

fn text(s: impl Into<String>) -> CallToolResponse {
    result::<CallToolResult>(json!({"content": [{"type": "text", "text": s.into()}]})).into()
}

/// The request a tool asks the client for: its method and params.
fn server_request(tool: &str, args: &Value) -> (&'static str, Value) {
    match tool {
        "sample" => (
            "sampling/createMessage",
            json!({"maxTokens": 10, "messages": [
                {"role": "user", "content": {"type": "text", "text": args["text"]}},
            ]}),
        ),
        "elicit" => (
            "elicitation/create",
            json!({"mode": "form", "message": "Your name?",
                   "requestedSchema": {"type": "object",
                                       "properties": {"name": {"type": "string"}},
                                       "required": ["name"]}}),
        ),
        _ => ("roots/list", json!({})),
    }
}

/// The tool's answer, from the client's answer to its request.
fn describe(tool: &str, answer: &Value) -> String {
    let str_at = |value: &Value| value.as_str().unwrap_or_default().to_owned();
    match tool {
        "sample" => format!("sampled: {}", str_at(&answer["content"]["text"])),
        "elicit" => format!(
            "elicited: {} {}",
            str_at(&answer["action"]),
            str_at(&answer["content"]["name"])
        ),
        _ => {
            let uris: Vec<String> = answer["roots"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|root| str_at(&root["uri"]))
                .collect();
            format!("roots: {}", uris.join(" "))
        }
    }
}

fn failure(error: impl std::fmt::Display) -> McpError {
    McpError::internal_error(error.to_string(), None)
}

fn tool(name: &str, description: &str, properties: Value) -> Value {
    json!({"name": name, "description": description,
           "inputSchema": {"type": "object", "properties": properties}})
}

#[derive(Clone)]
struct Peer;

impl Peer {
    async fn progress(
        context: &RequestContext<RoleServer>,
        done: f64,
        total: f64,
        message: &str,
    ) -> Result<(), McpError> {
        if let Some(token) = context.meta.get_progress_token() {
            let params: ProgressNotificationParam = from_json(json!({
                "progressToken": token, "progress": done, "total": total, "message": message,
            }));
            context
                .peer
                .notify_progress(params)
                .await
                .map_err(failure)?;
        }
        Ok(())
    }
}

impl ServerHandler for Peer {
    fn get_info(&self) -> ServerConfig {
        let capabilities: ServerCapabilities = from_json(json!({
            "tools": {}, "prompts": {}, "resources": {"subscribe": true},
            "completions": {}, "logging": {},
        }));
        let mut info = ServerConfig::new(capabilities);
        info.server_info = from_json(json!({"name": "peer-rust", "version": "1.0.0"}));
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let string = json!({"type": "string"});
        let number = json!({"type": "number"});
        Ok(result(json!({"tools": [
            tool("echo", "Echo the text.", json!({"text": string})),
            tool("progress", "Report steps of progress, then answer.", json!({"steps": number})),
            tool("big", "A text of size bytes.", json!({"size": number})),
            tool("fail", "An error result.", json!({})),
            tool("slow", "A progress notification after first_s, the answer after delay_s.",
                 json!({"first_s": number, "delay_s": number})),
            tool("log", "Send a log message, then answer.",
                 json!({"level": string, "text": string})),
            tool("touch", "Announce that the resource uri changed.", json!({"uri": string})),
            tool("sample", "Ask the client's model.", json!({"text": string})),
            tool("elicit", "Ask the user for a name.", json!({})),
            tool("roots", "List the client's roots.", json!({})),
        ]})))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = Value::Object(request.arguments.clone().unwrap_or_default());
        let str_arg = |key: &str| args[key].as_str().unwrap_or_default().to_owned();
        let num_arg = |key: &str| args[key].as_f64().unwrap_or_default();
        match request.name.as_ref() {
            "echo" => Ok(text(str_arg("text"))),
            "progress" => {
                let steps = num_arg("steps") as u64;
                for i in 1..=steps {
                    Peer::progress(&context, i as f64, steps as f64, &format!("step {i}")).await?;
                }
                Ok(text(format!("done {steps}")))
            }
            "big" => Ok(text("x".repeat(num_arg("size") as usize))),
            "fail" => {
                let failed: CallToolResult = result(json!({
                    "content": [{"type": "text", "text": "failed on purpose"}], "isError": true,
                }));
                Ok(failed.into())
            }
            "slow" => {
                let first = num_arg("first_s");
                tokio::time::sleep(Duration::from_secs_f64(first)).await;
                Peer::progress(&context, 0.0, 1.0, "started").await?;
                let rest = (num_arg("delay_s") - first).max(0.0);
                tokio::time::sleep(Duration::from_secs_f64(rest)).await;
                Ok(text("slow done"))
            }
            "log" => {
                let params: LoggingMessageNotificationParam = from_json(json!({
                    "level": str_arg("level"), "logger": "peer", "data": str_arg("text"),
                }));
                context
                    .peer
                    .notify_logging_message(params)
                    .await
                    .map_err(failure)?;
                Ok(text("logged"))
            }
            "touch" => {
                let params = from_json(json!({"uri": str_arg("uri")}));
                context
                    .peer
                    .notify_resource_updated(params)
                    .await
                    .map_err(failure)?;
                Ok(text("touched"))
            }
            name @ ("sample" | "elicit" | "roots") => {
                let modern = context.protocol_version() == Some(ProtocolVersion::V_2026_07_28);
                if !modern {
                    // The handshake era: a request to the client, answered on this call.
                    let answer = match name {
                        "sample" => {
                            let params = from_json(server_request(name, &args).1);
                            let answer = context.peer.create_message(params).await;
                            serde_json::to_value(answer.map_err(failure)?)
                        }
                        "elicit" => {
                            let params: ElicitRequestParams =
                                from_json(server_request(name, &args).1);
                            let answer = context.peer.create_elicitation(params).await;
                            serde_json::to_value(answer.map_err(failure)?)
                        }
                        _ => {
                            serde_json::to_value(context.peer.list_roots().await.map_err(failure)?)
                        }
                    };
                    return Ok(text(describe(name, &answer.map_err(failure)?)));
                }
                // 2026-07-28: the request goes back in the result (input_required), and the
                // client retries the call with its answer in inputResponses.
                let answers = request.input_responses.clone().unwrap_or_default();
                if let Some(answer) = answers.get(name) {
                    return Ok(text(describe(name, answer)));
                }
                let (method, params) = server_request(name, &args);
                let input: InputRequiredResult = from_json(json!({
                    "resultType": "input_required",
                    "inputRequests": {name: {"method": method, "params": params}},
                }));
                Ok(input.into())
            }
            other => Err(McpError::invalid_params(format!("no tool {other}"), None)),
        }
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let start: usize = request
            .and_then(|r| r.cursor)
            .map(|c| {
                c.parse()
                    .map_err(|_| McpError::invalid_params("bad cursor", None))
            })
            .transpose()?
            .unwrap_or(0);
        let end = (start + PAGE).min(ITEMS);
        let resources: Vec<Value> = (start..end)
            .map(|i| {
                json!({"uri": format!("peer://item/{i}"), "name": format!("item-{i}"),
                            "mimeType": "text/plain"})
            })
            .collect();
        let mut page = json!({"resources": resources});
        if end < ITEMS {
            page["nextCursor"] = json!(end.to_string());
        }
        Ok(result(page))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let uri = request.uri.clone();
        let Some(index) = uri.strip_prefix("peer://item/") else {
            return Err(McpError::resource_not_found(
                format!("no resource {uri}"),
                None,
            ));
        };
        let read: ReadResourceResult = result(json!({"contents": [
            {"uri": uri, "mimeType": "text/plain", "text": format!("item {index}")},
        ]}));
        Ok(read.into())
    }

    /// 2026-07-28's `subscriptions/listen`: every filter asked for is accepted (the updates
    /// of `touch` go on the call's own stream).
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.clone())
    }

    async fn subscribe(
        &self,
        _request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Ok(())
    }

    async fn unsubscribe(
        &self,
        _request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Ok(result(json!({"prompts": [{
            "name": "greet", "description": "Greet someone.",
            "arguments": [{"name": "who", "required": true}],
        }]})))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let args = request.arguments.clone().unwrap_or_default();
        let who = args.get("who").and_then(Value::as_str).unwrap_or_default();
        let prompt: GetPromptResult = result(json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": format!("Hello, {who}!")}},
        ]}));
        Ok(prompt.into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let prefix = request.argument.value.clone();
        let values: Vec<&str> = NAMES
            .into_iter()
            .filter(|n| n.starts_with(&prefix))
            .collect();
        Ok(from_json(
            json!({"completion": {"values": values, "total": values.len()}}),
        ))
    }

    async fn set_level(
        &self,
        _request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Ok(())
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> std::io::Result<()> {
    let service: StreamableHttpService<Peer, LocalSessionManager> = StreamableHttpService::new(
        || Ok(Peer),
        Default::default(),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("listening on http://{}/mcp", listener.local_addr()?);
    std::io::stdout().flush()?;
    axum::serve(listener, router).await
}
