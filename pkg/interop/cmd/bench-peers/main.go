// Command bench-peers measures this repository's local server side by side
// with the official a2a-go v2 server (cmd/a2ago-echo), both serving an echo
// agent from their in-memory stores, under the same load generator (wrk and
// infra/load/load.lua): the server's CPU per request (user+sys from
// /proc/<pid>/stat over the run, divided by the requests served), requests
// per second and the latency's p50 and p99 for the public card, a blocking
// send and a get, and the start-up time (exec to the first card served,
// median of several runs), with the ratios the goals of issue 29 name.
// `make bench-peers` runs it.
//
// Beside them it measures the floor: cmd/netfloor, net/http answering each
// call with our answer to it (A2A 1.0) as a constant, what any Go server
// pays on the machine for that exchange; the report says what each goal
// asks of ours beside that floor. A server that answers fewer requests a
// second pays more per request for the same exchange (the CPUs fall idle
// between requests and each one wakes them), so the floor is measured a
// second time at ours's rate: netfloor spinning before each answer for
// what ours spent over the floor in that round, its CPU per request
// reported less the spin.
//
// Ours is measured twice, speaking A2A 1.0 (A2A-Version: 1.0, SendMessage,
// GetTask) and A2A 0.3 (message/send, tasks/get); a2a-go speaks 1.0. By
// default a2a-go serves the same agent card as ours (its A2A 1.0 fields:
// interfaces, extensions, skills), since on loopback the bytes of a
// response weigh on its cost (a 2,000-byte body costs a bare net/http
// server 3-4 µs more per request here than a 480-byte one), so that the
// card row compares the servers, not the cards; -peer-own-card serves its
// own small card instead. Each measurement runs on a fresh server after
// a warm-up it does not count, and the servers take their turns call by
// call, round by round, in a new random order each round, so that the
// load of a shared machine weighs on each alike. The report gives the
// harness's own noise: the two columns of ours answer the card with one
// binary, so what parts them is the measurement's. Logging and telemetry
// stay at their defaults (ours writes its summary line per request); the
// servers' output goes to /dev/null. By default the server runs on CPU 0
// and wrk on CPU 1 (taskset), as `make load` does.
//
// It needs wrk (Debian: apt-get install wrk) and Linux's /proc.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

func main() {
	var o options
	flag.StringVar(&o.repo, "repo", "../..", "the repository's root (where go.mod and infra/load/load.lua are)")
	flag.DurationVar(&o.duration, "duration", 4*time.Second, "length of each measured wrk run")
	flag.DurationVar(&o.warmup, "warmup", time.Second, "length of the wrk run each fresh server gets before it is measured (0: none)")
	flag.IntVar(&o.rounds, "rounds", 5, "measured wrk runs per call and server (the median of the rounds decides; an odd number has one)")
	flag.IntVar(&o.starts, "starts", 101, "start-up measurements per server, each binary once a round in a random order (the median is reported: one start varies by about a millisecond on a shared 2-CPU host, so a median of 21 is good to about 0.2 ms, one of 101 to 0.1)")
	flag.IntVar(&o.connections, "connections", 32, "wrk connections")
	flag.IntVar(&o.threads, "threads", 2, "wrk threads")
	flag.BoolVar(&o.pin, "pin", true, "run the server on CPU 0 and wrk on CPU 1 (taskset)")
	flag.BoolVar(&o.peerCard, "peer-own-card", false, "a2a-go serves its own small card, not ours (see the doc)")
	flag.BoolVar(&o.js, "js", true, "measure the a2a-js peer too (@a2a-js/sdk's server, installed by npm; skipped when node or npm is missing)")
	calls := flag.String("calls", "card,send,get", "the calls measured, comma-separated")
	flag.Parse()
	if o.duration < time.Second || o.duration%time.Second != 0 {
		fatalf("-duration %s: wrk takes whole seconds", o.duration)
	}
	if o.warmup < 0 || o.warmup%time.Second != 0 {
		fatalf("-warmup %s: wrk takes whole seconds", o.warmup)
	}
	if o.rounds < 1 {
		fatalf("-rounds %d: at least one", o.rounds)
	}
	o.calls = strings.Split(*calls, ",")
	for _, c := range o.calls {
		if _, ok := callNames[c]; !ok {
			fatalf("-calls: %q is not a call (card, send, get)", c)
		}
	}
	if _, err := exec.LookPath("wrk"); err != nil {
		fatalf("wrk is not installed: the load generator of this harness (Debian: apt-get install wrk)")
	}
	if o.pin {
		if _, err := exec.LookPath("taskset"); err != nil {
			fmt.Fprintln(os.Stderr, "bench-peers: taskset not found, so server and wrk share every CPU (util-linux has it)")
			o.pin = false
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	dir, err := os.MkdirTemp("", "bench-peers")
	if err != nil {
		fatalf("%v", err)
	}
	defer os.RemoveAll(dir)
	if err := run(ctx, o, dir); err != nil {
		os.RemoveAll(dir)
		fatalf("%v", err)
	}
}

type options struct {
	repo                 string
	duration, warmup     time.Duration
	rounds, starts       int
	connections, threads int
	pin                  bool
	// peerCard: a2a-go serves its own card (-peer-own-card).
	peerCard bool
	// js: measure the a2a-js peer (-js).
	js    bool
	calls []string
}

func run(ctx context.Context, o options, dir string) error {
	repo, err := filepath.Abs(o.repo)
	if err != nil {
		return err
	}
	o.repo = repo
	script := filepath.Join(repo, "infra", "load", "load.lua")
	if _, err := os.Stat(script); err != nil {
		return fmt.Errorf("-repo %s: %w", repo, err)
	}
	ours, peer, floor := filepath.Join(dir, "a2a-local"), filepath.Join(dir, "a2ago-echo"), filepath.Join(dir, "netfloor")
	if err := build(ctx, repo, ours, "./cmd/a2a-local"); err != nil {
		return err
	}
	for _, bin := range []string{peer, floor} {
		if err := build(ctx, filepath.Join(repo, "pkg", "interop"), bin, "./cmd/"+filepath.Base(bin)); err != nil {
			return err
		}
	}
	servers := []server{
		{name: "ours, 1.0", bin: ours, version: "1.0", ours: true},
		{name: "ours, 0.3", bin: ours, version: "0.3", ours: true},
		{name: "a2a-go v2", bin: peer, version: "1.0"},
		{name: "net/http floor", bin: floor, version: "1.0", floor: true, bodies: map[string]string{}},
		{name: "net/http floor at ours's rate", bin: floor, version: "1.0", floor: true, atRate: true},
	}
	// The floor answers each call with ours's answer in A2A 1.0.
	answers, err := servers[0].answers(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", servers[0].name, err)
	}
	for call, body := range answers {
		path := filepath.Join(dir, "answer-"+call+".json")
		if err := os.WriteFile(path, body, 0o600); err != nil {
			return err
		}
		servers[3].bodies[call] = path
	}
	servers[4].bodies = servers[3].bodies
	if o.js {
		js, missing, err := jsPeer(ctx, repo, dir)
		switch {
		case err != nil:
			return err
		case missing != "":
			fmt.Fprintf(os.Stderr, "bench-peers: %s, so a2a-js is not measured (-js=false says so quietly)\n", missing)
		default:
			servers = append(servers, js)
		}
	}
	cards := make([][]byte, len(servers))
	if cards[0], err = servers[0].card(ctx); err != nil {
		return err
	}
	cards[1] = cards[0]
	if !o.peerCard {
		path := filepath.Join(dir, "card.json")
		if err := os.WriteFile(path, cards[0], 0o600); err != nil {
			return err
		}
		servers[2].args = []string{"-card", path}
	}
	if cards[2], err = servers[2].card(ctx); err != nil {
		return err
	}
	m := machine()
	fmt.Printf("bench-peers: %s, %s\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), m)
	pinning := "server and wrk share every CPU"
	if o.pin {
		pinning = "server on CPU 0, wrk on CPU 1"
	}
	fmt.Printf("wrk -t%d -c%d -d%s after a %s warm-up, %d rounds per call, the servers in a new random order each round; %s; echo agents, in-memory stores, logs at their default level to /dev/null\n",
		o.threads, o.connections, o.duration, o.warmup, o.rounds, pinning)
	peerCard := "our card's A2A 1.0 fields (the same agent), read with its card type"
	if o.peerCard {
		peerCard = "its own small card"
	}
	fmt.Printf("cards: ours %d bytes; a2a-go serves %s, %d bytes\n\n", len(cards[0]), peerCard, len(cards[2]))

	res := results{servers: servers, calls: o.calls, load: map[string][][]loadResult{}}
	for _, c := range o.calls {
		res.load[c] = make([][]loadResult, len(servers))
		for r := 0; r < o.rounds; r++ {
			for _, i := range roundOrder(servers) {
				s := servers[i]
				var spin time.Duration
				if s.atRate {
					if spin, err = s.rateSpin(ctx, c, o, script, res.load[c][0][r].cpuPerRequest(), res.load[c][3][r].cpuPerRequest()); err != nil {
						return fmt.Errorf("%s, %s: %w", s.name, c, err)
					}
				}
				lr, err := s.load(ctx, c, o, script, spin)
				if err != nil {
					return fmt.Errorf("%s, %s: %w", s.name, c, err)
				}
				fmt.Printf("  %-5s %-10s round %d: %s\n", c, s.name, r+1, lr)
				res.load[c][i] = append(res.load[c][i], lr)
			}
		}
	}
	if res.startup, err = startups(servers, o.starts, func(s server) (time.Duration, error) { return s.startup(ctx) }); err != nil {
		return err
	}
	fmt.Printf("\nload average at the end: %s\n\n", loadAverage())
	res.write(os.Stdout)
	return nil
}

// roundOrder is the order the servers take their turns in one round: a
// new random one each round, so that no server always follows the same
// one (a server measured right after another pays for what that one left
// behind: caches, the CPUs' state, the kernel's sockets), except that a
// floor at ours's rate comes last, since its spin is taken from ours, 1.0
// and the floor in the same round.
func roundOrder(servers []server) []int {
	var order, last []int
	for i, s := range servers {
		if s.atRate {
			last = append(last, i)
		} else {
			order = append(order, i)
		}
	}
	rand.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
	return append(order, last...)
}

// rateSpin is the spin that brings the floor to ours's rate for call c:
// what ours spends per request (target) less what the floor spends at that
// rate. That is more than at the floor's own rate (floor), so a short run
// spinning for target-floor measures it first.
func (s server) rateSpin(ctx context.Context, c string, o options, script string, target, floor time.Duration) (time.Duration, error) {
	first := max(0, target-floor)
	short := o
	short.duration = max(time.Second, (o.duration / 4).Truncate(time.Second)) // wrk takes whole seconds
	lr, err := s.load(ctx, c, short, script, first)
	if err != nil {
		return 0, err
	}
	return max(0, target-lr.cpuPerRequest()), nil
}

// jsPeer makes the a2a-js peer in dir: a2ajs/, an echo agent on
// @a2a-js/sdk's own server, its packages installed by npm as its lock file
// pins them. missing says why it cannot be made here (no node, no npm).
// Against it issue 29 asks a send and a get five times cheaper.
func jsPeer(ctx context.Context, repo, dir string) (s server, missing string, err error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return server{}, "node is not installed", nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return server{}, "npm is not installed", nil
	}
	src, dst := filepath.Join(repo, "pkg", "interop", "cmd", "bench-peers", "a2ajs"), filepath.Join(dir, "a2ajs")
	if err := os.Mkdir(dst, 0o700); err != nil {
		return server{}, "", err
	}
	for _, name := range []string{"package.json", "package-lock.json", "server.mjs"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return server{}, "", err
		}
		if err := os.WriteFile(filepath.Join(dst, name), b, 0o600); err != nil {
			return server{}, "", err
		}
	}
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dst
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return server{}, "", fmt.Errorf("npm ci in %s (the a2a-js peer; -js=false leaves it out): %w", dst, err)
	}
	return server{name: "a2a-js 0.3", bin: node, script: filepath.Join(dst, "server.mjs"), version: "0.3",
		goals: map[string]float64{"send": 5, "get": 5}}, "", nil
}

// build compiles pkg in dir (its module) into out.
func build(ctx context.Context, dir, out, pkg string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s in %s: %w", pkg, dir, err)
	}
	return nil
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench-peers: "+format+"\n", args...)
	os.Exit(1)
}

// startups starts (start) each binary n times and returns each server's
// start-up times. A binary is started once a round, in a new random order
// each round, and its times are those of every server it runs as (ours,
// 1.0 and ours, 0.3 are one binary with the same settings; the floor at
// ours's rate has none: it is the floor's binary, started as the floor
// is). A start right after one of the same binary came out faster (its
// pages were in the caches): with a column each and a fixed order, ours,
// 0.3, always started after ours, 1.0, came out 0.1-0.5 ms faster in every
// run.
func startups(servers []server, n int, start func(server) (time.Duration, error)) ([][]time.Duration, error) {
	first := make([]int, len(servers)) // the server whose start is i's
	var distinct []int
	for i, s := range servers {
		first[i] = i
		if s.atRate {
			first[i] = -1 // the floor's binary, started as the floor is
			continue
		}
		for _, j := range distinct {
			if s.bin == servers[j].bin && s.script == servers[j].script && s.ours == servers[j].ours && slices.Equal(s.args, servers[j].args) {
				first[i] = j
				break
			}
		}
		if first[i] == i {
			distinct = append(distinct, i)
		}
	}
	times := make([][]time.Duration, len(servers))
	for range n {
		rand.Shuffle(len(distinct), func(a, b int) { distinct[a], distinct[b] = distinct[b], distinct[a] })
		for _, i := range distinct {
			d, err := start(servers[i])
			if err != nil {
				return nil, fmt.Errorf("%s, start-up: %w", servers[i].name, err)
			}
			times[i] = append(times[i], d)
		}
	}
	for i := range servers {
		if first[i] >= 0 {
			times[i] = times[first[i]]
		}
	}
	return times, nil
}
