package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"golang.org/x/net/netutil"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/card"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/console"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore/s3store"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/readdeadline"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/setup"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/startup"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/telemetry"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
)

// RunLocal runs the local server until ctx is done: it reads the
// configuration through getenv, builds the agent named by A2A_AGENT from reg,
// listens, prints where to reach the agent and how to send it a first
// message to out, and logs to logOut. loadAWS makes the AWS configuration
// when tasks are kept in DynamoDB or files in S3: LocalAWS (the
// environment's credentials, else the AWS CLI's) for the local commands;
// nil means EnvAWS.
func RunLocal(ctx context.Context, getenv func(string) string, reg *agent.Registry, out, logOut io.Writer, loadAWS AWSLoader) error {
	cfg, err := config.Load(getenv)
	httpCfg, httpErr := config.LoadHTTP(getenv)
	if err = errors.Join(err, httpErr); err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	// The address is taken first: a port in use is reported before
	// anything is built, and the first clients' connections wait in the
	// listener's queue while the server is built (a client polling for
	// the card gets it as soon as the server serves, not at its next try).
	ln, err := listen(ctx, cfg.Host, cfg.Port)
	if err != nil {
		return fmt.Errorf("listen on A2A_HOST=%s A2A_PORT=%d: %w", cfg.Host, cfg.Port, err)
	}
	defer ln.Close() // closed by Serve once serving; here when building fails
	// Read deadlines are enforced by one watcher, at most
	// deadlineResolution late, not by a runtime timer that net/http moves
	// three times a request.
	ln = readdeadline.Wrap(netutil.LimitListener(ln, httpCfg.MaxConnections), deadlineResolution)
	// The log lines of a busy server are written in batches, a quiet
	// one's at once (see telemetry.CoalescingWriter); Close writes the
	// last ones.
	lines := telemetry.NewCoalescingWriter(logOut, logDelay, nil)
	defer lines.Close()
	log := startup.NewLogger(lines, cfg.LogLevel)
	startup.LogWarnings(ctx, log, cfg)
	sink, err := metrics.FromEnv(getenv, out, nil)
	if err != nil {
		return err
	}
	tel := telemetry.NewFunction("local", log, sink, nil)
	ctx = tel.Context(ctx)
	ag, err := reg.New(cfg.Agent, getenv)
	if err != nil {
		return err
	}
	authn, err := LocalAuthenticator(cfg)
	if err != nil {
		return err
	}
	o := LocalOptions{Auth: authn, Log: log, Telemetry: tel}
	if loadAWS == nil {
		loadAWS = EnvAWS
	}
	dynamoDB := cfg.TaskStore.Backend == config.BackendDynamoDB
	var awsCfg aws.Config
	if cfg.Files.Bucket != "" || dynamoDB {
		// Made once for the bucket and the table: without credentials in
		// the environment, they come from the AWS CLI, once for both.
		if awsCfg, err = loadAWS(ctx, cfg); err != nil {
			return err
		}
	}
	if cfg.Files.Bucket != "" {
		if o.Files, err = openBucket(ctx, cfg, awsCfg); err != nil {
			return err
		}
	}
	if dynamoDB {
		if o.Store, err = OpenDynamoStore(ctx, cfg, StoreOptions{Log: log, AWS: &awsCfg}); err != nil {
			return err
		}
		if cfg.Push.Enabled {
			if o.Changes, err = DynamoChanges(ctx, cfg, awsCfg, log); err != nil {
				return err
			}
		}
	}
	// The card is served at once, the rest when built: NewLocal runs on
	// another goroutine while this one serves (see starting). A client
	// polling for the card gets it about half a millisecond sooner (a
	// tenth of the start-up here); a server that cannot be built stops,
	// without its banner, and says why, as before.
	card, err := NewLocalCard(cfg, ag.Info(), o)
	if err != nil {
		return err
	}
	start := newStarting(card)
	ctx, stopServing := context.WithCancel(ctx)
	defer stopServing()
	var srv *Local
	go func() {
		var err error
		srv, err = NewLocal(cfg, ag, o)
		if err != nil {
			stopServing()
			start.finish(nil, err)
			return
		}
		start.finish(srv.Handler, nil)
	}()
	defer func() {
		<-start.ready
		if srv != nil {
			srv.Close()
		}
	}()

	hs := httpServer(httpCfg, telemetry.Middleware(tel, start, httpapi.Documents()...))
	// This goroutine serves, at once: a client polling for the card is
	// answered while another writes what the server says about itself
	// (the banner's write and a process's first log line take a start-up
	// a tenth of a millisecond, and a goroutine started to serve would
	// start a moment later still). A third shuts the server down when ctx
	// ends.
	_, anonymous := authn.(auth.Anonymous)
	announced := make(chan struct{})
	go func() {
		defer close(announced)
		if <-start.ready; start.err != nil {
			return // not serving after all: RunLocal says why
		}
		printBanner(out, cfg, ag.Info().Name, !anonymous)
		if anonymous {
			log.Warn(anonymousWarning, "host", cfg.Host)
		}
	}()
	served, shut := make(chan struct{}), make(chan error, 1)
	go func() { shut <- shutdownWhenDone(ctx, hs, served) }()
	err = hs.Serve(ln)
	close(served)
	<-announced
	if !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	err = <-shut
	if <-start.ready; start.err != nil {
		return start.err
	}
	return err
}

// listen listens on host:port with plain TCP. Go's listeners use
// Multipath TCP where the kernel enables it: a server on this machine's
// loopback or LAN has one path to offer, and the first listen would
// probe the kernel for MPTCP and the IPv4/IPv6 stack first (a tenth of a
// millisecond of the start-up, measured: docs/measured.md).
func listen(ctx context.Context, host string, port int) (net.Listener, error) {
	var lc net.ListenConfig
	lc.SetMultipathTCP(false)
	return lc.Listen(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
}

// shutdownWhenDone shuts hs down when ctx ends, waiting up to 5 s for its
// requests to finish; it returns at once when served is closed first (the
// server stopped on its own).
func shutdownWhenDone(ctx context.Context, hs *http.Server, served <-chan struct{}) error {
	select {
	case <-served:
		return nil
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// openBucket returns the store of the bucket A2A_FILES_BUCKET names,
// reached with awsCfg, created first (when missing) with
// A2A_TASK_STORE_CREATE_TABLE, as the table is.
func openBucket(ctx context.Context, cfg config.Config, awsCfg aws.Config) (*s3store.Store, error) {
	b, err := setup.Bucket(cfg, awsCfg)
	if err != nil {
		return nil, fmt.Errorf("A2A_FILES_BUCKET: %w", err)
	}
	if cfg.TaskStore.CreateTable {
		if err := b.CreateBucket(ctx); err != nil {
			return nil, fmt.Errorf("A2A_FILES_BUCKET: %w", err)
		}
	}
	return b, nil
}

// deadlineResolution is how often the read deadlines of the local
// server's connections are looked at: A2A_HTTP_READ_HEADER_TIMEOUT_SECONDS,
// A2A_HTTP_READ_TIMEOUT_SECONDS and A2A_HTTP_IDLE_TIMEOUT_SECONDS are
// enforced at most this late.
const deadlineResolution = 250 * time.Millisecond

// httpServer serves h with the connection limits of c: a client that is
// slow to send its request (a body promised and never sent) is cut after
// c.ReadTimeout and its connection closed. No write timeout: a blocking
// send's answer may take A2A_BLOCKING_TIMEOUT_SECONDS.
func httpServer(c config.HTTP, h http.Handler) *http.Server {
	// HTTP/1.1 only: the local server serves plain HTTP, where HTTP/2
	// needs TLS (or h2c, which net/http leaves off), and net/http would
	// otherwise configure HTTP/2 for TLS connections it never gets when
	// it starts serving, on the way to the first request.
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	return &http.Server{Handler: h, ReadHeaderTimeout: c.ReadHeaderTimeout, ReadTimeout: c.ReadTimeout, IdleTimeout: c.IdleTimeout, Protocols: &protocols}
}

// logDelay is how late a log line of the local server may reach its
// output.
const logDelay = 10 * time.Millisecond

func printBanner(out io.Writer, cfg config.Config, name string, bearer bool) {
	authHeader := ""
	if bearer {
		authHeader = ` -H "Authorization: Bearer $A2A_BEARER_TOKEN"`
	}
	fmt.Fprintf(out, `a2a-lambda local server: serving %q (A2A_AGENT=%s)
  agent card  %s/.well-known/agent-card.json
%s  JSON-RPC    %s/
  REST        %s%s/v1
%s
Send a first message (blocking, so the answer holds the finished task):
  curl -s %s/%s -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"hello-1","parts":[{"kind":"text","text":"hello"}]},"configuration":{"blocking":true}}}'

`, name, cfg.Agent, cfg.PublicURL, consoleLine(cfg), cfg.PublicURL, cfg.PublicURL, card.RESTPath, pushLine(cfg), cfg.PublicURL, authHeader)
}

// consoleLine tells where the console is, when it is on.
func consoleLine(cfg config.Config) string {
	if !cfg.Console {
		return ""
	}
	return fmt.Sprintf("  console     %s%s\n", cfg.PublicURL, console.Path)
}

// pushLine tells where receivers find the keys of push notifications, and
// which webhooks the server accepts.
func pushLine(cfg config.Config) string {
	if !cfg.Push.Enabled {
		return "  push        off (A2A_PUSH_NOTIFICATIONS=false)\n"
	}
	hooks := "https webhooks only"
	if cfg.Push.AllowInsecure {
		hooks = "http and loopback webhooks allowed: A2A_PUSH_ALLOW_INSECURE=true"
	}
	return fmt.Sprintf("  push keys   %s/.well-known/jwks.json (%s)\n", cfg.PublicURL, hooks)
}
