package lambdaemu

import (
	"errors"
	"fmt"
	"os/exec"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/syncbuf"
)

// Process is a function binary running against its own emulator.
type Process struct {
	Emulator *Emulator
	cmd      *exec.Cmd
	started  time.Time
	exited   chan struct{}
	waitErr  error
	stderr   syncbuf.Buffer
}

// Start runs the binary at bin with env (and AWS_LAMBDA_RUNTIME_API
// pointing at a new emulator). Stop it with Stop.
func Start(bin string, env []string, o Options) (*Process, error) {
	p := &Process{Emulator: New(o), exited: make(chan struct{})}
	p.cmd = exec.Command(bin)
	p.cmd.Env = append(append([]string{}, env...), "AWS_LAMBDA_RUNTIME_API="+p.Emulator.Addr())
	p.cmd.Stdout, p.cmd.Stderr = &p.stderr, &p.stderr
	p.started = time.Now()
	if err := p.cmd.Start(); err != nil {
		p.Emulator.Close()
		return nil, fmt.Errorf("lambdaemu: start %s: %w", bin, err)
	}
	go func() { p.waitErr = p.cmd.Wait(); close(p.exited) }()
	return p, nil
}

// ErrInitFailed is returned by Ready when the function reported a failed
// cold start.
var ErrInitFailed = errors.New("lambdaemu: the function reported an init error")

// Ready waits until the function asks for its first event and returns how
// long its cold start took (from exec). It fails when the function reports
// an init error (ErrInitFailed, with the report), exits, or takes longer
// than timeout.
func (p *Process) Ready(timeout time.Duration) (time.Duration, Report, error) {
	select {
	case <-p.Emulator.Ready():
		return time.Since(p.started), Report{}, nil
	case r := <-p.Emulator.InitError():
		return 0, r, ErrInitFailed
	case <-p.exited:
		return 0, Report{}, fmt.Errorf("lambdaemu: the function exited during its cold start (%v): %s", p.waitErr, p.Stderr())
	case <-time.After(timeout):
		return 0, Report{}, fmt.Errorf("lambdaemu: no request for an event within %s: %s", timeout, p.Stderr())
	}
}

// Exit waits for the process to exit and returns its exit code.
func (p *Process) Exit(timeout time.Duration) (int, error) {
	select {
	case <-p.exited:
		return p.cmd.ProcessState.ExitCode(), nil
	case <-time.After(timeout):
		return 0, fmt.Errorf("lambdaemu: the function did not exit within %s", timeout)
	}
}

// Stop kills the process (as Lambda ends an execution environment), waits
// for it and closes the emulator.
func (p *Process) Stop() {
	p.cmd.Process.Kill()
	<-p.exited
	p.Emulator.Close()
}

// Stderr is what the process wrote (stdout and stderr).
func (p *Process) Stderr() string { return p.stderr.String() }
