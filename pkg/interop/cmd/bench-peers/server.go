package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// callNames are the calls measured, with their names in the tables.
var callNames = map[string]string{"card": "card", "send": "send (blocking)", "get": "get"}

// server is one column of the tables: a binary and the A2A version its
// load speaks.
type server struct {
	name, bin, version string
	// ours: the local server of this repository (its settings are
	// A2A_* variables); else a2ago-echo or netfloor (their address is a
	// flag).
	ours bool
	// floor: netfloor, which answers each call with bodies[call] (a
	// file), ours's answer to it.
	floor  bool
	bodies map[string]string
	// atRate: a floor that spins, before each answer, for what the first
	// server (ours, 1.0) spent per request over the plain floor in the same
	// round, so that it answers at ours's rate (see netfloor -spin); its
	// CPU per request is reported less the spin.
	atRate bool
	// args are more arguments of the binary.
	args []string
	// script is the program an interpreter (bin) runs: the a2a-js peer's
	// server, run by node.
	script string
	// goals are issue 29's goals against this peer by call, when they are
	// not those against a2a-go (goals): against a2a-js, a send and a get
	// five times cheaper.
	goals map[string]float64
}

// forCall is s as it serves call: the floor answers with the call's body.
func (s server) forCall(call string) server {
	if s.floor && s.bodies[call] != "" {
		s.args = append(slices.Clip(s.args), "-body", s.bodies[call])
	}
	return s
}

// command returns the server listening on port, its output discarded; on
// CPU 0 when pin.
func (s server) command(ctx context.Context, port int, pin bool) *exec.Cmd {
	addr := "127.0.0.1:" + strconv.Itoa(port)
	args := []string{s.bin}
	if s.script != "" {
		args = append(args, s.script)
	}
	if !s.ours {
		args = append(args, "-addr", addr) // a2ago-echo's, netfloor's and the a2a-js peer's flag
	}
	args = append(args, s.args...)
	if pin {
		args = append([]string{"taskset", "-c", "0"}, args...)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	// The defaults are measured: no A2A_* setting of the caller's
	// environment reaches the server, nor Lambda's name (which would turn
	// EMF metrics on).
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "A2A_") && !strings.HasPrefix(kv, "AWS_LAMBDA_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if s.ours {
		cmd.Env = append(cmd.Env, "A2A_AGENT=echo", "A2A_HOST=127.0.0.1", "A2A_PORT="+strconv.Itoa(port))
	}
	return cmd
}

// running is a started server.
type running struct {
	cmd  *exec.Cmd
	base string
	// card is the card it served first.
	card []byte
}

func (s server) start(ctx context.Context, pin bool) (*running, time.Duration, error) {
	port, err := freePort()
	if err != nil {
		return nil, 0, err
	}
	cmd := s.command(ctx, port, pin)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	r := &running{cmd: cmd, base: "http://127.0.0.1:" + strconv.Itoa(port)}
	d, err := r.firstCard(start)
	if err != nil {
		r.stop()
		return nil, 0, err
	}
	return r, d, nil
}

// firstCard polls the card until it is served and returns the time since
// start.
func (r *running) firstCard(start time.Time) (time.Duration, error) {
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: time.Second}
	for time.Since(start) < 10*time.Second {
		resp, err := c.Get(r.base + "/.well-known/agent-card.json")
		if err == nil {
			card, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err == nil && resp.StatusCode == http.StatusOK {
				d := time.Since(start)
				r.card = card
				return d, nil
			}
		}
		pause(pollInterval)
	}
	return 0, errors.New("the server did not serve its card within 10 s")
}

// pollInterval is how long firstCard waits between two tries.
const pollInterval = 100 * time.Microsecond

func (r *running) stop() {
	r.cmd.Process.Kill()
	r.cmd.Wait()
}

func (s server) startup(ctx context.Context) (time.Duration, error) {
	r, d, err := s.start(ctx, false)
	if err != nil {
		return 0, err
	}
	r.stop()
	return d, nil
}

// card returns the card the server serves.
func (s server) card(ctx context.Context) ([]byte, error) {
	r, _, err := s.start(ctx, false)
	if err != nil {
		return nil, err
	}
	r.stop()
	return r.card, nil
}

// loadResult is one wrk run against one server.
type loadResult struct {
	requests, errors int
	rps              float64
	p50, p99         time.Duration
	// cpu is the server's CPU time over the run.
	cpu time.Duration
	// spin is what a floor at a server's rate spent on purpose per
	// request (netfloor -spin).
	spin time.Duration
}

// cpuPerRequest is the server's CPU time per request served, less its
// spin.
func (l loadResult) cpuPerRequest() time.Duration {
	if l.requests == 0 {
		return 0
	}
	return l.cpu/time.Duration(l.requests) - l.spin
}

func (l loadResult) String() string {
	return fmt.Sprintf("%8d requests %8.0f req/s  p50 %-8s p99 %-8s %7.1f µs CPU/request", l.requests, l.rps,
		l.p50.Round(time.Microsecond), l.p99.Round(time.Microsecond), micros(l.cpuPerRequest()))
}

// load runs wrk with the call's requests against a fresh server, first
// unmeasured for o.warmup (the server's first requests grow its heap,
// its goroutines' stacks and the kernel's socket buffers), then measured
// for o.duration; a floor at a rate spins for spin before each answer.
func (s server) load(ctx context.Context, call string, o options, script string, spin time.Duration) (loadResult, error) {
	s = s.forCall(call)
	if spin > 0 {
		s.args = append(slices.Clip(s.args), "-spin", spin.String())
	}
	r, _, err := s.start(ctx, o.pin)
	if err != nil {
		return loadResult{}, err
	}
	defer r.stop()
	env := append(os.Environ(), "LOAD="+call, "A2A_VERSION="+s.version)
	if call == "get" && !s.floor {
		id, _, err := createTask(r.base, s.version)
		if err != nil {
			return loadResult{}, fmt.Errorf("create the task to get: %w", err)
		}
		env = append(env, "TASK_ID="+id)
	}
	wrk := func(d time.Duration) ([]byte, error) {
		args := []string{"wrk", "-t" + strconv.Itoa(o.threads), "-c" + strconv.Itoa(o.connections), "-d" + d.String(), "-s", script, r.base}
		if o.pin {
			args = append([]string{"taskset", "-c", "1"}, args...)
		}
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		// A run id of its own: the warm-up's sends and the measured
		// run's carry different message ids (a repeated one would be
		// answered as a retry).
		cmd.Env = append(slices.Clip(env), "RUN_ID="+strconv.Itoa(rand.IntN(1e9)))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("wrk: %w: %s", err, stderr.Bytes())
		}
		return out, nil
	}
	if o.warmup > 0 {
		if _, err := wrk(o.warmup); err != nil {
			return loadResult{}, fmt.Errorf("warm-up: %w", err)
		}
	}
	before, err := cpuTime(r.cmd.Process.Pid)
	if err != nil {
		return loadResult{}, err
	}
	out, err := wrk(o.duration)
	if err != nil {
		return loadResult{}, err
	}
	after, err := cpuTime(r.cmd.Process.Pid)
	if err != nil {
		return loadResult{}, err
	}
	res, err := parseWrk(out)
	if err != nil {
		return loadResult{}, err
	}
	if res.errors > 0 {
		return res, fmt.Errorf("%d of %d requests failed", res.errors, res.requests)
	}
	res.cpu, res.spin = after-before, spin
	return res, nil
}

// createTask sends one blocking message and returns its task's id and the
// answer.
func createTask(base, version string) (string, []byte, error) {
	body := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"bench-get","parts":[{"kind":"text","text":"hello"}]},"configuration":{"blocking":true}}}`
	if version == "1.0" {
		body = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","messageId":"bench-get","parts":[{"text":"hello"}]}}}`
	}
	raw, err := post(base, version, body)
	if err != nil {
		return "", nil, err
	}
	id, err := taskID(raw)
	return id, raw, err
}

// getTask returns the answer of a get of task id.
func getTask(base, version, id string) ([]byte, error) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":%q}}`, id)
	if version == "1.0" {
		body = fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":%q}}`, id)
	}
	return post(base, version, body)
}

// post sends a JSON-RPC request in version and returns the answer.
func post(base, version, body string) ([]byte, error) {
	req, err := http.NewRequest(http.MethodPost, base+"/", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if version == "1.0" {
		req.Header.Set("A2A-Version", "1.0")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, raw)
	}
	return raw, nil
}

// answers are ours's answers to each call (the card, a blocking send and
// a get of its task), for the floor to give.
func (s server) answers(ctx context.Context) (map[string][]byte, error) {
	r, _, err := s.start(ctx, false)
	if err != nil {
		return nil, err
	}
	defer r.stop()
	id, send, err := createTask(r.base, s.version)
	if err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	get, err := getTask(r.base, s.version, id)
	if err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	return map[string][]byte{"card": r.card, "send": send, "get": get}, nil
}

// taskID reads the task id of a send's JSON-RPC answer: result.id (0.3) or
// result.task.id (1.0).
func taskID(raw []byte) (string, error) {
	var rpc struct {
		Result struct {
			ID   string `json:"id"`
			Task struct {
				ID string `json:"id"`
			} `json:"task"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &rpc); err != nil {
		return "", fmt.Errorf("%w: %s", err, raw)
	}
	if rpc.Result.Task.ID != "" {
		return rpc.Result.Task.ID, nil
	}
	if rpc.Result.ID == "" {
		return "", fmt.Errorf("no task id in %s", raw)
	}
	return rpc.Result.ID, nil
}

var (
	wrkLoad    = regexp.MustCompile(`(?m)^LOAD requests=(\d+) errors=(\d+)$`)
	wrkLatency = regexp.MustCompile(`(?m)^LATENCY p50_us=(\d+) p99_us=(\d+)$`)
	wrkRate    = regexp.MustCompile(`(?m)^Requests/sec:\s+([0-9.]+)$`)
)

// parseWrk reads the figures of wrk's output with load.lua: the requests
// and errors, the latency percentiles and the rate.
func parseWrk(out []byte) (loadResult, error) {
	l, lat, rate := wrkLoad.FindSubmatch(out), wrkLatency.FindSubmatch(out), wrkRate.FindSubmatch(out)
	if l == nil || lat == nil || rate == nil {
		return loadResult{}, fmt.Errorf("wrk's output lacks the LOAD, LATENCY or Requests/sec line:\n%s", out)
	}
	var res loadResult
	res.requests, _ = strconv.Atoi(string(l[1]))
	res.errors, _ = strconv.Atoi(string(l[2]))
	p50, _ := strconv.Atoi(string(lat[1]))
	p99, _ := strconv.Atoi(string(lat[2]))
	res.p50, res.p99 = time.Duration(p50)*time.Microsecond, time.Duration(p99)*time.Microsecond
	res.rps, _ = strconv.ParseFloat(string(rate[1]), 64)
	return res, nil
}

// userHZ is the unit of /proc's CPU times (USER_HZ, 100 on Linux).
const userHZ = 100

// cpuTime is the user+sys CPU time of process pid.
func cpuTime(pid int) (time.Duration, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStat(raw)
}

// parseStat reads utime and stime (fields 14 and 15) of a /proc/<pid>/stat
// line. The command name (field 2) is in parentheses and may hold spaces,
// so the fields are counted after its closing parenthesis.
func parseStat(raw []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0, fmt.Errorf("not a /proc stat line: %q", raw)
	}
	f := strings.Fields(string(raw[i+1:]))
	// f[0] is field 3 (state): utime is field 14, f[11].
	if len(f) < 13 {
		return 0, fmt.Errorf("not a /proc stat line: %q", raw)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc stat: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// machine describes the host: CPUs, their model, and the load average.
func machine() string {
	model := ""
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("%s, %d CPUs (%s), %s, load average %s", host, runtime.NumCPU(), model, runtime.Version(), loadAverage())
}

// loadAverage is the 1, 5 and 15 minute load averages.
func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(raw))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
