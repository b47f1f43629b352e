package scaffold

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/buildinfo"
)

// Go runs the go command for the scaffold: to find a2a-lambda's source in
// the module cache, and to tidy the new module.
type Go struct {
	// Path is the go command; empty looks "go" up in PATH.
	Path string
	// Env is the command's environment; nil inherits the process's.
	Env []string
}

// Found reports whether the go command can be run.
func (g Go) Found() bool {
	_, err := g.path()
	return err == nil
}

func (g Go) path() (string, error) {
	if g.Path != "" {
		return exec.LookPath(g.Path)
	}
	return exec.LookPath("go")
}

// run runs go with args in dir and returns its standard output; an error
// quotes its standard error.
func (g Go) run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	bin, err := g.path()
	if err != nil {
		return nil, fmt.Errorf("the go command is needed: %w", err)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, g.Env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			err = fmt.Errorf("%w: %s", err, msg)
		}
		return stdout.Bytes(), fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	return stdout.Bytes(), nil
}

// ModuleDir returns the directory of a2a-lambda's source at version in the
// module cache, downloading it first when needed (`go mod download -json`).
func (g Go) ModuleDir(ctx context.Context, version string) (string, error) {
	out, runErr := g.run(ctx, "", "mod", "download", "-json", buildinfo.Module+"@"+version)
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil {
		if runErr != nil {
			return "", runErr
		}
		return "", fmt.Errorf("go mod download -json: unexpected output: %w", err)
	}
	if m.Error != "" {
		return "", errors.New(m.Error)
	}
	if runErr != nil {
		return "", runErr
	}
	if m.Dir == "" {
		return "", fmt.Errorf("go mod download gave no directory for %s@%s", buildinfo.Module, version)
	}
	return m.Dir, nil
}

// Tidy runs `go mod tidy` in dir: it writes go.sum and completes go.mod.
func (g Go) Tidy(ctx context.Context, dir string) error {
	_, err := g.run(ctx, dir, "mod", "tidy")
	return err
}
