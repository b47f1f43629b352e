package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// goals are issue 29's: how many times cheaper than each peer ours must be
// (the peer's CPU per request over ours; for the start-up, the peer's
// start-up over ours).
var goals = map[string]float64{"card": 1, "send": 20, "get": 5, "start-up": 1}

// goal is issue 29's goal against s for call c: s's own, or goals.
func (s server) goal(c string) (float64, bool) {
	own := goals
	if s.goals != nil {
		own = s.goals
	}
	g, ok := own[c]
	return g, ok
}

// ownGoal is how a ratio's cell names goal: by itself, for a peer with
// goals of its own (the goal column has a2a-go's).
func (s server) ownGoal(goal float64) string {
	if s.goals == nil {
		return ""
	}
	return fmt.Sprintf(", goal ≥ %gx", goal)
}

// results are the measurements of one run.
type results struct {
	servers []server
	calls   []string
	// load[call][server] are the rounds' results, in order.
	load map[string][][]loadResult
	// startup[server] are the start-up times.
	startup [][]time.Duration
}

// write prints the figures of each server (medians, with the range of the
// rounds' CPU per request) and the ratios of each of ours to each peer.
func (r results) write(w io.Writer) {
	header := []string{"call"}
	for _, s := range r.servers {
		header = append(header, s.name)
	}
	var rows [][]string
	for _, c := range r.calls {
		cpu, rate, lat := []string{callNames[c] + ": CPU/request"}, []string{callNames[c] + ": requests/s"}, []string{callNames[c] + ": p50 / p99"}
		for i := range r.servers {
			rounds := r.load[c][i]
			per := mapSlice(rounds, func(l loadResult) float64 { return micros(l.cpuPerRequest()) })
			cpu = append(cpu, fmt.Sprintf("%s µs", spread(per, "%.1f")))
			rate = append(rate, fmt.Sprintf("%.0f", median(mapSlice(rounds, func(l loadResult) float64 { return l.rps }))))
			lat = append(lat, fmt.Sprintf("%s / %s", fmtDuration(median(mapSlice(rounds, func(l loadResult) float64 { return float64(l.p50) }))),
				fmtDuration(median(mapSlice(rounds, func(l loadResult) float64 { return float64(l.p99) })))))
		}
		rows = append(rows, cpu, rate, lat)
	}
	up := []string{fmt.Sprintf("start-up (exec → first card, median of %d)", len(r.startup[0]))}
	for i := range r.servers {
		if len(r.startup[i]) == 0 {
			up = append(up, "—") // the floor at a rate: the floor's binary
			continue
		}
		up = append(up, fmtDuration(median(mapSlice(r.startup[i], func(d time.Duration) float64 { return float64(d) }))))
	}
	rows = append(rows, up)
	writeTable(w, header, rows)

	fmt.Fprintln(w)
	header = []string{"how many times cheaper", "goal"}
	var pairs [][2]int
	for i, s := range r.servers {
		if !s.ours {
			continue
		}
		for j, p := range r.servers {
			if !p.ours && !p.floor {
				pairs = append(pairs, [2]int{i, j})
				header = append(header, fmt.Sprintf("%s than %s", s.name, p.name))
			}
		}
	}
	rows = nil
	for _, c := range append(slices.Clone(r.calls), "start-up") {
		name := "start-up"
		if c != "start-up" {
			name = callNames[c] + ": CPU/request"
		}
		row := []string{name, fmt.Sprintf("≥ %gx", goals[c])}
		for _, pr := range pairs {
			ratios := r.ratios(c, pr[0], pr[1])
			peer := r.servers[pr[1]]
			goal, ok := peer.goal(c)
			cell := spread(ratios, "%.2f") + "x"
			switch {
			case !ok:
				cell += ", no goal"
			case median(ratios) < goal:
				cell += peer.ownGoal(goal) + ", NOT met"
			default:
				cell += peer.ownGoal(goal) + ", met"
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	writeTable(w, header, rows)
	fmt.Fprintln(w, "\n(a range is min-max of the rounds, each ratio taken within one round; the median decides the goal; a peer with goals of its own has them in its cells)")
	r.writeNoise(w)
	r.writeFloor(w)
}

// writeNoise prints the harness's own noise, when the run tells it: two
// columns of ours are one binary with the same settings, and the card
// request is the same in both (a GET without a version header), so the
// difference between their cards' CPU per request is the measurement's,
// not the servers'. A margin of a goal smaller than it is within noise.
func (r results) writeNoise(w io.Writer) {
	if !slices.Contains(r.calls, "card") {
		return
	}
	a, b := -1, -1
	for i, s := range r.servers {
		if !s.ours {
			continue
		}
		if a < 0 {
			a = i
		} else if s.bin == r.servers[a].bin && b < 0 {
			b = i
		}
	}
	if b < 0 {
		return
	}
	diffs := mapSlice(r.ratios("card", a, b), func(x float64) float64 { return 100 * math.Abs(x-1) })
	fmt.Fprintf(w, "\nThe harness's noise: %s and %s are one binary answering the same card request; their CPU per request differed by %.1f%% (median of the rounds; the largest %.1f%%).\n",
		r.servers[a].name, r.servers[b].name, median(diffs), slices.Max(diffs))
}

// writeFloor prints, when the run measured the floor (netfloor), what each
// goal asks of ours beside what net/http alone costs for the same answer:
// a goal below the floor cannot be met by any Go server on this machine.
// With the floor at ours's rate measured too, it prints ours, 1.0 over
// that floor as well: what ours's own work costs at the rate it serves.
func (r results) writeFloor(w io.Writer) {
	floor, atRate, peer := -1, -1, -1
	for i, s := range r.servers {
		switch {
		case s.atRate:
			atRate = i
		case s.floor && floor < 0:
			floor = i
		case !s.ours && !s.floor && peer < 0:
			peer = i
		}
	}
	if floor < 0 || peer < 0 {
		return
	}
	fmt.Fprintf(w, "\nWhat the goals ask, beside the floor (%s: net/http answering each call with ours's answer in A2A 1.0, nothing else):\n\n", r.servers[floor].name)
	header := []string{"call", "the goal asks ≤", "floor"}
	ours := []int{}
	for i, s := range r.servers {
		if s.ours {
			ours = append(ours, i)
			header = append(header, s.name+" over the floor")
		}
	}
	if atRate >= 0 {
		header = append(header, "floor at ours's rate", r.servers[ours[0]].name+" over it")
	}
	var rows [][]string
	for _, c := range append(slices.Clone(r.calls), "start-up") {
		ask, base := r.cost(c, peer)/goals[c], r.cost(c, floor)
		format, over := "%.1f µs", "%+.1f µs" // over: a difference, signed
		name := callNames[c] + ": CPU/request"
		if c == "start-up" {
			format, over, name = "%.1f ms", "%+.1f ms", "start-up"
		}
		row := []string{name, fmt.Sprintf(format, ask), fmt.Sprintf(format, base)}
		if ask < base {
			row[1] += " (below the floor)"
		}
		for _, i := range ours {
			row = append(row, fmt.Sprintf(over, r.cost(c, i)-base))
		}
		if atRate >= 0 {
			if c == "start-up" {
				row = append(row, "—", "—")
			} else {
				at := r.cost(c, atRate)
				row = append(row, fmt.Sprintf(format, at), fmt.Sprintf(over, r.cost(c, ours[0])-at))
			}
		}
		rows = append(rows, row)
	}
	writeTable(w, header, rows)
}

// cost is server i's median CPU per request for call c in µs (the
// start-up: its median in ms).
func (r results) cost(c string, i int) float64 {
	if c == "start-up" {
		return median(mapSlice(r.startup[i], func(d time.Duration) float64 { return float64(d) })) / 1e6
	}
	return median(mapSlice(r.load[c][i], func(l loadResult) float64 { return micros(l.cpuPerRequest()) }))
}

// ratios are the peer's cost over ours for call c, one per round (the
// start-up: one per start, in order).
func (r results) ratios(c string, ours, peer int) []float64 {
	if c == "start-up" {
		var out []float64
		for k := range r.startup[ours] {
			out = append(out, float64(r.startup[peer][k])/float64(r.startup[ours][k]))
		}
		return out
	}
	var out []float64
	for k := range r.load[c][ours] {
		out = append(out, float64(r.load[c][peer][k].cpuPerRequest())/float64(r.load[c][ours][k].cpuPerRequest()))
	}
	return out
}

// spread is the median of xs, followed by their range when they differ.
func spread(xs []float64, format string) string {
	s := fmt.Sprintf(format, median(xs))
	if lo, hi := slices.Min(xs), slices.Max(xs); fmt.Sprintf(format, lo) != fmt.Sprintf(format, hi) {
		s += " (" + fmt.Sprintf(format, lo) + "-" + fmt.Sprintf(format, hi) + ")"
	}
	return s
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func mapSlice[T any](xs []T, f func(T) float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// fmtDuration prints nanoseconds in µs below a millisecond, else in ms.
func fmtDuration(ns float64) string {
	if ns < float64(time.Millisecond) {
		return fmt.Sprintf("%.0f µs", ns/1e3)
	}
	return fmt.Sprintf("%.1f ms", ns/1e6)
}

// writeTable prints a Markdown table.
func writeTable(w io.Writer, header []string, rows [][]string) {
	fmt.Fprintln(w, "| "+strings.Join(header, " | ")+" |")
	fmt.Fprintln(w, "|"+strings.Repeat("---|", len(header)))
	for _, row := range rows {
		fmt.Fprintln(w, "| "+strings.Join(row, " | ")+" |")
	}
}
