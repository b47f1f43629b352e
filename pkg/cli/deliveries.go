package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// deliveries runs "a2a deliveries URL TASK" (the task's delivery log) and
// "a2a deliveries retry URL TASK [EVENT]" (redrive its failed deliveries).
func (r *runner) deliveries(args []string) int {
	if len(args) > 0 && args[0] == "retry" {
		r.cmd.name, r.cmd.args, r.cmd.summary = "deliveries retry", "URL TASK [EVENT]", "send a task's failed (dead-lettered) push notifications again"
		return r.redrive(args[1:])
	}
	fs := r.flags()
	page := pageFlags(fs, "deliveries")
	pos, code, ok := r.parse(fs, args, 2, 2)
	if !ok {
		return code
	}
	ctx, cancel := r.context()
	defer cancel()
	p := a2a.ListDeliveriesParams{TaskID: pos[1], PageSize: page.size(), PageToken: *page.token}
	res, err := r.client(pos[0]).ListDeliveries(ctx, p)
	if err != nil {
		return r.fail(err)
	}
	if r.common.json {
		return r.printJSON(res)
	}
	printDeliveries(r.out, res.Deliveries)
	if len(res.Deliveries) == 0 {
		fmt.Fprintf(r.out, "task %s has no push notification deliveries\n", pos[1])
	}
	for _, d := range res.Deliveries {
		if d.State == a2a.DeliveryFailed {
			fmt.Fprintf(r.out, "\nSend the failed ones again: a2a deliveries retry %s %s [EVENT]\n", pos[0], pos[1])
			break
		}
	}
	if res.NextPageToken != "" {
		fmt.Fprintf(r.out, "\nNext page: --page-token %s\n", res.NextPageToken)
	}
	return ExitOK
}

func (r *runner) redrive(args []string) int {
	fs := r.flags()
	configID := fs.String("config", "", "only the deliveries to this push config")
	pos, code, ok := r.parse(fs, args, 2, 3)
	if !ok {
		return code
	}
	p := a2a.RedriveDeliveriesParams{TaskID: pos[1], ConfigID: *configID}
	if len(pos) == 3 {
		p.EventID = pos[2]
		if !strings.Contains(p.EventID, ":") {
			p.EventID = p.TaskID + ":" + p.EventID // a bare version
		}
	}
	ctx, cancel := r.context()
	defer cancel()
	res, err := r.client(pos[0]).RedriveDeliveries(ctx, p)
	if err != nil {
		return r.fail(err)
	}
	if r.common.json {
		return r.printJSON(res)
	}
	for _, d := range res.Redriven {
		fmt.Fprintf(r.out, "queued %s to config %s again (redrive %d)\n", d.EventID, d.ConfigID, d.Redrives)
	}
	fmt.Fprintf(r.out, "Follow them: a2a deliveries %s %s\n", pos[0], pos[1])
	return ExitOK
}

// printDeliveries prints each delivery with its attempts.
func printDeliveries(w io.Writer, ds []a2a.Delivery) {
	for i, d := range ds {
		if i > 0 {
			fmt.Fprintln(w)
		}
		state := d.State
		if d.DeadLettered {
			state += ", dead-lettered"
		}
		if d.Redrives > 0 {
			state += fmt.Sprintf(", redriven %d×", d.Redrives)
		}
		fmt.Fprintf(w, "%s to config %s: %s\n", d.EventID, d.ConfigID, state)
		for _, a := range d.Attempts {
			outcome := a.State
			if a.StatusCode != 0 {
				outcome = fmt.Sprintf("%d %s", a.StatusCode, a.State)
			}
			line := fmt.Sprintf("  #%d  %s  %s", a.Attempt, a.At, outcome)
			if a.Error != "" {
				line += ": " + a.Error
			}
			if a.NextAttemptAt != "" {
				line += " (next attempt " + a.NextAttemptAt + ")"
			}
			fmt.Fprintln(w, line)
		}
	}
}
