package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseWrk(t *testing.T) {
	out := []byte(`Running 10s test @ http://127.0.0.1:41234
  2 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     2.51ms    4.02ms  83.10ms   95.12%
    Req/Sec     4.46k   512.33     5.60k    70.00%
  88690 requests in 10.00s, 95.31MB read
Requests/sec:   8868.71
Transfer/sec:      9.53MB
LOAD requests=88690 errors=0
LATENCY p50_us=2512 p99_us=83104
`)
	got, err := parseWrk(out)
	require.NoError(t, err)
	assert.Equal(t, loadResult{requests: 88690, rps: 8868.71, p50: 2512 * time.Microsecond, p99: 83104 * time.Microsecond}, got)

	_, err = parseWrk([]byte("Requests/sec: 10\nLOAD requests=1 errors=0\n"))
	assert.ErrorContains(t, err, "LATENCY", "the script's percentile line is missing")
}

func TestParseStat(t *testing.T) {
	// Field 2 may hold spaces and parentheses; utime 250 and stime 50
	// ticks are fields 14 and 15.
	line := "4242 (a2a (local) x) S 1 4242 4242 0 -1 4194560 1500 0 0 0 250 50 0 0 20 0 7 0 123 1000000 2000 18446744073709551615\n"
	got, err := parseStat([]byte(line))
	require.NoError(t, err)
	assert.Equal(t, 3*time.Second, got)

	_, err = parseStat([]byte("4242 (short) S 1 2"))
	assert.Error(t, err)
	_, err = parseStat([]byte("no parenthesis"))
	assert.Error(t, err)
}

func TestTaskID(t *testing.T) {
	id, err := taskID([]byte(`{"jsonrpc":"2.0","id":1,"result":{"id":"t-03","kind":"task"}}`))
	require.NoError(t, err)
	assert.Equal(t, "t-03", id, "A2A 0.3: the result is the task")

	id, err = taskID([]byte(`{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t-10"}}}`))
	require.NoError(t, err)
	assert.Equal(t, "t-10", id, "A2A 1.0: the result holds the task")

	_, err = taskID([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"bad"}}`))
	assert.ErrorContains(t, err, "no task id")
}

func TestMedianAndSpread(t *testing.T) {
	assert.Equal(t, 2.0, median([]float64{3, 1, 2}))
	assert.Equal(t, 2.5, median([]float64{4, 1, 2, 3}))
	assert.Equal(t, "2.0 (1.0-3.0)", spread([]float64{3, 1, 2}, "%.1f"))
	assert.Equal(t, "2.0", spread([]float64{2, 2.01}, "%.1f"), "no range when the rounds print alike")
}

// wrkRun is a wrk run of requests that took cpu of the server's time, 10 s long.
func wrkRun(requests int, cpu time.Duration) loadResult {
	return loadResult{requests: requests, rps: float64(requests) / 10, p50: time.Millisecond, p99: 20 * time.Millisecond, cpu: cpu}
}

// The ratios are the peer's cost over ours, taken within each round, and
// the median of the rounds decides each goal.
func TestResultsWrite(t *testing.T) {
	r := results{
		servers: []server{{name: "ours", ours: true}, {name: "peer"}},
		calls:   []string{"card", "send"},
		load: map[string][][]loadResult{
			// card: ours 10 and 12 µs, the peer 11 and 12 µs: 1.1x and 1.0x.
			"card": {{wrkRun(1000, 10*time.Millisecond), wrkRun(1000, 12*time.Millisecond)}, {wrkRun(1000, 11*time.Millisecond), wrkRun(1000, 12*time.Millisecond)}},
			// send: ours 100 µs, the peer 1,000 µs: 10x, short of 20x.
			"send": {{wrkRun(100, 10*time.Millisecond), wrkRun(100, 10*time.Millisecond)}, {wrkRun(10, 10*time.Millisecond), wrkRun(10, 10*time.Millisecond)}},
		},
		startup: [][]time.Duration{{5 * time.Millisecond, 6 * time.Millisecond, 4 * time.Millisecond}, {10 * time.Millisecond, 6 * time.Millisecond, 8 * time.Millisecond}},
	}
	out := written(r)
	assert.Contains(t, out, "| card: CPU/request | 11.0 (10.0-12.0) µs | 11.5 (11.0-12.0) µs |")
	assert.Contains(t, out, "| send (blocking): CPU/request | 100.0 µs | 1000.0 µs |")
	assert.Contains(t, out, "| start-up (exec → first card, median of 3) | 5.0 ms | 8.0 ms |")
	assert.Contains(t, out, "| card: CPU/request | ≥ 1x | 1.05 (1.00-1.10)x, met |")
	assert.Contains(t, out, "| send (blocking): CPU/request | ≥ 20x | 10.00x, NOT met |")
	assert.Contains(t, out, "| start-up | ≥ 1x | 2.00 (1.00-2.00)x, met |")
}

// A peer with goals of its own (a2a-js: a send and a get five times
// cheaper) is judged by them, each named in its cells, and a call it has
// no goal for says so; the goal column keeps a2a-go's.
func TestResultsWriteOwnGoals(t *testing.T) {
	r := results{
		servers: []server{{name: "ours", ours: true}, {name: "peer"}, {name: "js", goals: map[string]float64{"send": 5, "get": 5}}},
		calls:   []string{"card", "send", "get"},
		load: map[string][][]loadResult{
			// card: ours 10 µs, the peer 11, js 150.
			"card": {{wrkRun(1000, 10*time.Millisecond)}, {wrkRun(1000, 11*time.Millisecond)}, {wrkRun(100, 15*time.Millisecond)}},
			// send: ours 100 µs, the peer 1,000 (10x, short of 20x), js
			// 600 (6x, above 5x).
			"send": {{wrkRun(100, 10*time.Millisecond)}, {wrkRun(10, 10*time.Millisecond)}, {wrkRun(10, 6*time.Millisecond)}},
			// get: ours 50 µs, the peer 250 (5x), js 200 (4x, short of 5x).
			"get": {{wrkRun(100, 5*time.Millisecond)}, {wrkRun(10, 2500*time.Microsecond)}, {wrkRun(10, 2*time.Millisecond)}},
		},
		startup: [][]time.Duration{{5 * time.Millisecond}, {5 * time.Millisecond}, {200 * time.Millisecond}},
	}
	out := written(r)
	assert.Contains(t, out, "| how many times cheaper | goal | ours than peer | ours than js |")
	assert.Contains(t, out, "| card: CPU/request | ≥ 1x | 1.10x, met | 15.00x, no goal |")
	assert.Contains(t, out, "| send (blocking): CPU/request | ≥ 20x | 10.00x, NOT met | 6.00x, goal ≥ 5x, met |")
	assert.Contains(t, out, "| get: CPU/request | ≥ 5x | 5.00x, met | 4.00x, goal ≥ 5x, NOT met |")
	assert.Contains(t, out, "| start-up | ≥ 1x | 1.00x, met | 40.00x, no goal |")
}

// A peer run by an interpreter (the a2a-js peer, by node) is started with
// its program first, then the address; on CPU 0 when pinned.
func TestCommandScript(t *testing.T) {
	s := server{name: "a2a-js 0.3", bin: "/usr/bin/node", script: "/tmp/a2ajs/server.mjs", version: "0.3"}
	assert.Equal(t, []string{"/usr/bin/node", "/tmp/a2ajs/server.mjs", "-addr", "127.0.0.1:9003"}, s.command(context.Background(), 9003, false).Args)
	assert.Equal(t, []string{"taskset", "-c", "0", "/usr/bin/node", "/tmp/a2ajs/server.mjs", "-addr", "127.0.0.1:9003"}, s.command(context.Background(), 9003, true).Args)
}

// With the floor measured, the report says what each goal asks of ours
// (the peer's cost over the goal) beside the floor, and ours's cost above
// it (or below: a difference, signed); a goal under the floor says so.
func TestResultsWriteFloor(t *testing.T) {
	r := results{
		servers: []server{{name: "ours", ours: true}, {name: "peer"}, {name: "floor", floor: true}},
		calls:   []string{"card", "get"},
		load: map[string][][]loadResult{
			// card: ours 10 µs, the peer 14 µs, the floor 11 µs: the goal
			// (1x) asks 14, above the floor, and ours is below it.
			"card": {{wrkRun(1000, 10*time.Millisecond)}, {wrkRun(1000, 14*time.Millisecond)}, {wrkRun(1000, 11*time.Millisecond)}},
			// get: ours 30 µs, the peer 90 µs, the floor 20 µs: 5x asks 18,
			// below it.
			"get": {{wrkRun(1000, 30*time.Millisecond)}, {wrkRun(1000, 90*time.Millisecond)}, {wrkRun(1000, 20*time.Millisecond)}},
		},
		startup: [][]time.Duration{{9 * time.Millisecond}, {4 * time.Millisecond}, {3 * time.Millisecond}},
	}
	out := written(r)
	assert.Contains(t, out, "| call | the goal asks ≤ | floor | ours over the floor |")
	assert.Contains(t, out, "| card: CPU/request | 14.0 µs | 11.0 µs | -1.0 µs |")
	assert.Contains(t, out, "| get: CPU/request | 18.0 µs (below the floor) | 20.0 µs | +10.0 µs |")
	assert.Contains(t, out, "| start-up | 4.0 ms | 3.0 ms | +6.0 ms |")
	assert.NotContains(t, out, "than floor", "the floor is no peer to compare with")
}

// With the floor at ours's rate measured, its CPU per request is reported
// less its spin, and the report says what ours spends over it; it has no
// start-up of its own.
func TestResultsWriteFloorAtRate(t *testing.T) {
	spun := func(requests int, cpu, spin time.Duration) loadResult {
		l := wrkRun(requests, cpu)
		l.spin = spin
		return l
	}
	r := results{
		servers: []server{{name: "ours", ours: true}, {name: "peer"}, {name: "floor", floor: true}, {name: "floor at rate", floor: true, atRate: true}},
		calls:   []string{"send"},
		load: map[string][][]loadResult{
			// send: ours 80 µs, the peer 1,000 µs, the floor 12 µs; at
			// ours's rate (a 68 µs spin) the floor costs 98-68 = 30 µs.
			"send": {{wrkRun(1000, 80*time.Millisecond)}, {wrkRun(100, 100*time.Millisecond)}, {wrkRun(1000, 12*time.Millisecond)},
				{spun(1000, 98*time.Millisecond, 68*time.Microsecond)}},
		},
		startup: [][]time.Duration{{9 * time.Millisecond}, {4 * time.Millisecond}, {3 * time.Millisecond}, nil},
	}
	out := written(r)
	assert.Contains(t, out, "| send (blocking): CPU/request | 80.0 µs | 1000.0 µs | 12.0 µs | 30.0 µs |")
	assert.Contains(t, out, "| start-up (exec → first card, median of 1) | 9.0 ms | 4.0 ms | 3.0 ms | — |")
	assert.Contains(t, out, "| call | the goal asks ≤ | floor | ours over the floor | floor at ours's rate | ours over it |")
	assert.Contains(t, out, "| send (blocking): CPU/request | 50.0 µs | 12.0 µs | +68.0 µs | 30.0 µs | +50.0 µs |")
	assert.Contains(t, out, "| start-up | 4.0 ms | 3.0 ms | +6.0 ms | — | — |")
	assert.NotContains(t, out, "than floor", "no floor is a peer to compare with")
}

// Two columns of ours with one binary answer the same card request: the
// report gives the difference of their cards as the harness's noise, and
// none when the run has no card or one column of ours.
func TestResultsWriteNoise(t *testing.T) {
	r := results{
		servers: []server{{name: "ours, 1.0", bin: "ours", ours: true}, {name: "ours, 0.3", bin: "ours", ours: true}, {name: "peer", bin: "peer"}},
		calls:   []string{"card"},
		load: map[string][][]loadResult{
			// ours, 0.3 over ours, 1.0: 1.05, 0.98 and 1.10.
			"card": {
				{wrkRun(1000, 20*time.Millisecond), wrkRun(1000, 20*time.Millisecond), wrkRun(1000, 20*time.Millisecond)},
				{wrkRun(1000, 21*time.Millisecond), wrkRun(1000, 19600*time.Microsecond), wrkRun(1000, 22*time.Millisecond)},
				{wrkRun(1000, 30*time.Millisecond), wrkRun(1000, 30*time.Millisecond), wrkRun(1000, 30*time.Millisecond)},
			},
		},
		startup: [][]time.Duration{{time.Millisecond}, {time.Millisecond}, {time.Millisecond}},
	}
	assert.Contains(t, written(r), "The harness's noise: ours, 1.0 and ours, 0.3 are one binary answering the same card request; their CPU per request differed by 5.0% (median of the rounds; the largest 10.0%).")

	one := r
	one.servers = []server{r.servers[0], {name: "other", bin: "other", ours: true}, r.servers[2]}
	assert.NotContains(t, written(one), "noise", "two binaries of ours tell nothing of the harness")
	noCard := r
	noCard.calls = nil
	assert.NotContains(t, written(noCard), "noise")
}

// Each round takes every server once, in a new random order, with a floor
// at ours's rate last (its spin comes from the round's others).
func TestRoundOrder(t *testing.T) {
	servers := []server{{name: "ours", ours: true}, {name: "peer"}, {name: "floor", floor: true}, {name: "floor at rate", floor: true, atRate: true}, {name: "ours again", ours: true}}
	firsts := map[int]bool{}
	for range 200 {
		order := roundOrder(servers)
		require.Len(t, order, len(servers))
		assert.ElementsMatch(t, []int{0, 1, 2, 3, 4}, order)
		assert.Equal(t, 3, order[len(order)-1], "the floor at ours's rate comes last")
		firsts[order[0]] = true
	}
	assert.Len(t, firsts, 4, "every other server leads some rounds")
}

// written is the report r writes.
func written(r results) string {
	var b strings.Builder
	r.write(&b)
	return b.String()
}

// Each binary starts once a round, in a new order each round, and the
// servers that are one binary share its times; the floor at ours's rate
// has none.
func TestStartups(t *testing.T) {
	servers := []server{
		{name: "ours, 1.0", bin: "ours", ours: true, version: "1.0"},
		{name: "ours, 0.3", bin: "ours", ours: true, version: "0.3"},
		{name: "a2a-go v2", bin: "peer"},
		{name: "net/http floor", bin: "floor", floor: true},
		{name: "net/http floor at ours's rate", bin: "floor", floor: true, atRate: true},
	}
	var order []string
	got, err := startups(servers, 5, func(s server) (time.Duration, error) {
		order = append(order, s.bin)
		return time.Duration(len(order)) * time.Millisecond, nil
	})
	require.NoError(t, err)
	require.Len(t, order, 15, "three binaries, five rounds")
	for r := range 5 {
		assert.ElementsMatch(t, []string{"ours", "peer", "floor"}, order[3*r:3*r+3], "round %d", r)
	}
	require.Len(t, got, len(servers))
	assert.Len(t, got[0], 5)
	assert.Equal(t, got[0], got[1], "ours, 0.3 is ours, 1.0's binary")
	assert.Len(t, got[2], 5)
	assert.Len(t, got[3], 5)
	assert.Empty(t, got[4])

	_, err = startups(servers, 2, func(server) (time.Duration, error) { return 0, errors.New("no card") })
	assert.ErrorContains(t, err, ", start-up: no card")
}
