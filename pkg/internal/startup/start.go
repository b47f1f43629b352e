// Package startup is the start-up every binary that serves an agent
// shares, the local server and the Lambda functions alike: secret
// references resolved, the configuration loaded and checked, the JSON
// logger, the AWS configuration built from what Lambda puts in the
// environment, the push signing keys, and the options of the HTTP handler
// (Edge, HandlerOptions: cards, limits, health profile).
//
// It must not import the Lambda runtime client
// (github.com/aws/aws-lambda-go/lambda, which links net/rpc and
// encoding/gob): Go runs every linked package's initialization at each
// start, and the local server never talks to the Lambda Runtime API.
// pkg/boot, the Lambda functions' start-up, adds the runtime and exports
// these names to the functions of other modules. Nor may it import the AWS
// SDK's service clients or its default configuration loader
// (github.com/aws/aws-sdk-go-v2/config), which the card function must not
// link either. Tests in functions/ and pkg/app/localmain hold the binaries
// to that.
package startup

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/telemetry"
)

// Env is what a function starts from: the environment with its secret
// references resolved, the configuration read from it, and the logger at
// the configured level.
type Env struct {
	Getenv func(string) string
	Config config.Config
	Log    *slog.Logger
}

// Start reads a function's environment through getenv: secret references
// resolved (see ResolveSecrets; without references no request is made),
// the configuration loaded, then each check run on it (their errors
// joined), and a JSON logger on logOut, on which the configuration's
// warnings are logged. Call it once per cold start.
func Start(ctx context.Context, getenv func(string) string, logOut io.Writer, checks ...func(config.Config) error) (Env, error) {
	getenv, err := ResolveSecrets(ctx, getenv)
	if err != nil {
		return Env{}, err
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		return Env{}, fmt.Errorf("configuration: %w", err)
	}
	for _, check := range checks {
		if err := check(cfg); err != nil {
			return Env{}, err
		}
	}
	log := NewLogger(logOut, cfg.LogLevel)
	LogWarnings(ctx, log, cfg)
	return Env{Getenv: getenv, Config: cfg, Log: log}, nil
}

// LogWarnings logs, once at start, each setting the configuration corrected
// rather than refused (config.Config.Warnings).
func LogWarnings(ctx context.Context, log *slog.Logger, cfg config.Config) {
	for _, w := range cfg.Warnings {
		log.WarnContext(ctx, "configuration corrected", "warning", w)
	}
}

// Agent builds the agent A2A_AGENT names from reg.
func (e Env) Agent(reg *agent.Registry) (agent.Agent, error) {
	return reg.New(e.Config.Agent, e.Getenv)
}

// NewLogger returns the JSON logger every binary uses (telemetry.NewLogger,
// which the function's summary lines use too).
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return telemetry.NewLogger(w, level)
}
