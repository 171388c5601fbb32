// A small MCP server on the Go SDK, a peer of mcpstream's tests (tests/peers).
//
// It listens on 127.0.0.1 on a port the system picks and prints one line,
// "listening on http://127.0.0.1:PORT/mcp", once it accepts connections. With
// -stateless it keeps no session (the SDK's stateless Streamable HTTP mode).
// Every list comes in pages of two.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoArgs struct {
	Text string `json:"text"`
}

type progressArgs struct {
	Steps int `json:"steps"`
}

type bigArgs struct {
	Size int `json:"size"`
}

type slowArgs struct {
	FirstS float64 `json:"first_s"`
	DelayS float64 `json:"delay_s"`
}

// sleep waits seconds, or until ctx is done.
func sleep(ctx context.Context, seconds float64) error {
	select {
	case <-time.After(time.Duration(seconds * float64(time.Second))):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type logArgs struct {
	Level string `json:"level"`
	Text  string `json:"text"`
}

type uriArgs struct {
	URI string `json:"uri"`
}

type empty struct{}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func progress(ctx context.Context, req *mcp.CallToolRequest, done, total float64, message string) {
	if token := req.Params.GetProgressToken(); token != nil {
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token, Progress: done, Total: total, Message: message,
		})
	}
}

var names = []string{"Ada", "Alan", "Grace"}

func newServer() *mcp.Server {
	var server *mcp.Server
	server = mcp.NewServer(&mcp.Implementation{Name: "peer-go", Version: "1.0.0"}, &mcp.ServerOptions{
		PageSize:           2,
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			values := []string{}
			for _, name := range names {
				if strings.HasPrefix(name, req.Params.Argument.Value) {
					values = append(values, name)
				}
			}
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
		},
		Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}},
	})
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Echo the text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return text(in.Text), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "progress", Description: "Report steps of progress, then answer."},
		func(ctx context.Context, req *mcp.CallToolRequest, in progressArgs) (*mcp.CallToolResult, any, error) {
			for i := 1; i <= in.Steps; i++ {
				progress(ctx, req, float64(i), float64(in.Steps), fmt.Sprintf("step %d", i))
			}
			return text(fmt.Sprintf("done %d", in.Steps)), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "big", Description: "A text of size bytes."},
		func(_ context.Context, _ *mcp.CallToolRequest, in bigArgs) (*mcp.CallToolResult, any, error) {
			return text(strings.Repeat("x", in.Size)), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "fail", Description: "An error result."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			result := text("failed on purpose")
			result.IsError = true
			return result, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "slow", Description: "A progress notification after first_s, the answer after delay_s."},
		func(ctx context.Context, req *mcp.CallToolRequest, in slowArgs) (*mcp.CallToolResult, any, error) {
			if err := sleep(ctx, in.FirstS); err != nil {
				return nil, nil, err
			}
			progress(ctx, req, 0, 1, "started")
			if err := sleep(ctx, in.DelayS-in.FirstS); err != nil {
				return nil, nil, err
			}
			return text("slow done"), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "log", Description: "Send a log message, then answer."},
		func(ctx context.Context, req *mcp.CallToolRequest, in logArgs) (*mcp.CallToolResult, any, error) {
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: mcp.LoggingLevel(in.Level), Logger: "peer", Data: in.Text})
			return text("logged"), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "touch", Description: "Announce that the resource uri changed."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in uriArgs) (*mcp.CallToolResult, any, error) {
			_ = server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: in.URI})
			return text("touched"), nil, nil
		})
	// The server requests are written as multi-round-trip handlers: at 2026-07-28 the SDK
	// returns the input requests to the client, which retries the call with the responses; in
	// the handshake era it sends them as requests itself and calls the handler again.
	mcp.AddTool(server, &mcp.Tool{Name: "sample", Description: "Ask the client's model."},
		func(_ context.Context, req *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			// The SDK decodes a sampling answer as either result type.
			switch res := req.Params.InputResponses["sample"].(type) {
			case *mcp.CreateMessageResult:
				return text("sampled: " + res.Content.(*mcp.TextContent).Text), nil, nil
			case *mcp.CreateMessageWithToolsResult:
				return text("sampled: " + res.Content[0].(*mcp.TextContent).Text), nil, nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"sample": &mcp.CreateMessageParams{
				MaxTokens: 10,
				Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Text}}},
			}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "elicit", Description: "Ask the user for a name."},
		func(_ context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
			if res, ok := req.Params.InputResponses["elicit"].(*mcp.ElicitResult); ok {
				return text(fmt.Sprintf("elicited: %s %v", res.Action, res.Content["name"])), nil, nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"elicit": &mcp.ElicitParams{
				Mode:    "form",
				Message: "Your name?",
				RequestedSchema: map[string]any{
					"type":       "object",
					"properties": map[string]any{"name": map[string]any{"type": "string"}},
					"required":   []string{"name"},
				},
			}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "roots", Description: "List the client's roots."},
		func(_ context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
			if res, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult); ok {
				uris := []string{}
				for _, root := range res.Roots {
					uris = append(uris, root.URI)
				}
				return text("roots: " + strings.Join(uris, " ")), nil, nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}}, nil, nil
		})
	for i := 0; i < 5; i++ {
		uri := fmt.Sprintf("peer://item/%d", i)
		body := fmt.Sprintf("item %d", i)
		server.AddResource(&mcp.Resource{URI: uri, Name: fmt.Sprintf("item-%d", i), MIMEType: "text/plain"},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: body}}}, nil
			})
	}
	server.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greet someone.", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: "Hello, " + req.Params.Arguments["who"] + "!"}},
			}}, nil
		})
	return server
}

func main() {
	stateless := flag.Bool("stateless", false, "keep no session")
	flag.Parse()
	server := newServer()
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: *stateless})
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	fmt.Printf("listening on http://%s/mcp\n", listener.Addr())
	if err := http.Serve(listener, mux); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
