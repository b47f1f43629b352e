package dynamo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb/expression"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// Contexts (store.ContextStore) have no items of their own: an owner's
// context is its live tasks that share a contextId, which the byContext
// index already lists (newest status first). So creating a task costs no
// context write, and
//
//   - GetContext is one Query of the context's index entries (about 150
//     bytes each: the count and the newest status come from it) and one
//     GetItem of its newest task, which holds the context's session
//     binding (contextSession, see CreateTask);
//   - ListContexts walks the owner's tasks on byOwner (every shard, see
//     shards.go), newest status first, reads their contextIds (one BatchGetItem per walked page) and
//     lists a context where its newest task stands; each context listed
//     costs one Query of its index entries;
//   - ClearContext reads the context's tasks from byContext, refuses while
//     one is not terminal, then expires each task (expiresAt = now, index
//     keys removed: reads, lists, counts and writes treat it as gone at
//     once; TTL deletes it and its messages later). A task created in the
//     context while a clear runs may survive it.
//
// A context is as live as its tasks: it is gone once the last of them
// expired or was cleared, and its UpdatedAt is the newest status timestamp
// of its tasks. Indexes are eventually consistent: for a moment after a
// task is created or changed, its context may be read as it was (its
// count, order, or, for the context's second task, the session binding).
// Feedback is an attribute of the task item, written only on a terminal
// task, which nothing else writes.
//
// Tables written before this layout also hold context items (PK
// X#<sha256(owner, contextId)>, SK X): nothing reads them any more and TTL
// deletes them.

const attrFeedback = "feedback"

// contextEntry is a task of a context as the byContext index has it.
type contextEntry struct {
	taskID string
	listSK string
	state  a2a.TaskState
}

// contextQuery is the Query of an owner's context's live byContext
// entries, newest status first.
func contextQuery(owner, contextID string, t clockTimes) (*dynamodb.QueryInput, error) {
	e, err := expression.NewBuilder().
		WithKeyCondition(expression.Key(attrListContext).Equal(expression.Value(listContextKey(owner, contextID)))).
		WithFilter(expression.Name(attrExpiresAt).GreaterThan(expression.Value(t.unix))).Build()
	if err != nil {
		return nil, fmt.Errorf("dynamo: build context tasks query: %w", err)
	}
	return &dynamodb.QueryInput{
		IndexName: aws.String(indexByContext), KeyConditionExpression: e.KeyCondition(), FilterExpression: e.Filter(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(), ScanIndexForward: aws.Bool(false),
	}, nil
}

// contextTasks reads every live byContext entry of an owner's context,
// newest status first.
func (s *Store) contextTasks(ctx context.Context, owner, contextID string, t clockTimes) ([]contextEntry, error) {
	in, err := contextQuery(owner, contextID, t)
	if err != nil {
		return nil, err
	}
	var entries []contextEntry
	for {
		out, err := s.query(ctx, in)
		if err != nil {
			return nil, err
		}
		for _, m := range out.Items {
			id, sk, err := listEntry(m)
			if err != nil {
				return nil, err
			}
			st, _ := m[attrState].(*dynamodb.AttributeValueMemberS)
			if st == nil {
				return nil, errors.New("dynamo: byContext entry without the task's state")
			}
			entries = append(entries, contextEntry{taskID: id, listSK: sk, state: a2a.TaskState(st.Value)})
		}
		if out.LastEvaluatedKey == nil {
			return entries, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// newestPage is how many byContext entries newestContextTask reads at a
// time: the newest is live unless it expired, with the context, moments ago.
const newestPage = 4

// newestContextTask is the id of the newest live task of an owner's
// context, read a few entries at a time until one is live: ErrNotFound
// when none is.
func (s *Store) newestContextTask(ctx context.Context, owner, contextID string, t clockTimes) (string, error) {
	in, err := contextQuery(owner, contextID, t)
	if err != nil {
		return "", err
	}
	in.Limit = aws.Int32(newestPage)
	for {
		out, err := s.query(ctx, in)
		if err != nil {
			return "", err
		}
		if len(out.Items) > 0 {
			id, _, err := listEntry(out.Items[0])
			return id, err
		}
		if out.LastEvaluatedKey == nil {
			return "", store.ErrNotFound
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// contextRecord is the record of a context whose live tasks are entries
// (not empty), the newest of which is the task item newest.
func contextRecord(owner, contextID string, entries []contextEntry, newest *taskItem) store.ContextRecord {
	ts, _, _ := strings.Cut(entries[0].listSK, "#")
	return store.ContextRecord{Owner: owner, ContextID: contextID, TaskCount: len(entries), UpdatedAt: ts, SessionID: newest.contextSession()}
}

// contextSession is the session bound to the task's context when the task
// was created. Tasks written before contextSession existed hold their own.
func (it *taskItem) contextSession() string {
	if it.ContextSession != "" {
		return it.ContextSession
	}
	return it.SessionID
}

// boundSession returns the session bound to an owner's context, or "" when
// it has none.
func (s *Store) boundSession(ctx context.Context, owner, contextID string) (string, error) {
	session, err := s.ContextSession(ctx, owner, contextID)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	return session, err
}

// ContextSession implements store.ContextStore: a Query of the context's
// newest byContext entries, one GetItem of its newest task.
func (s *Store) ContextSession(ctx context.Context, owner, contextID string) (string, error) {
	id, err := s.newestContextTask(ctx, owner, contextID, s.times())
	if err != nil {
		return "", err
	}
	newest, err := s.readTask(ctx, id)
	if err != nil {
		return "", err
	}
	return newest.contextSession(), nil
}

// GetContext implements store.ContextStore: one Query of the context's
// byContext entries, one GetItem of its newest task.
func (s *Store) GetContext(ctx context.Context, owner, contextID string) (*store.ContextRecord, error) {
	t := s.times()
	entries, err := s.contextTasks(ctx, owner, contextID, t)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, store.ErrNotFound
	}
	newest, err := s.readTask(ctx, entries[0].taskID)
	if err != nil {
		return nil, err
	}
	rec := contextRecord(owner, contextID, entries, newest)
	return &rec, nil
}

// contextWalkPage is how many of the owner's tasks ListContexts reads at a
// time, for a page of n contexts.
func contextWalkPage(n int) int32 { return int32(min(2*n+1, 100)) }

// ListContexts implements store.ContextStore: it walks the owner's tasks
// on byOwner (its partitions merged, as ListTasks reads them), newest
// status first, and lists each context at its newest task (a context whose
// newest task is above the walk's start was listed on an earlier page).
// The cursor is the byOwner sort key of the last walked task, as ListTasks
// has it; the walk is confined to the owner's partitions whatever it says.
func (s *Store) ListContexts(ctx context.Context, q store.ContextQuery) (store.ContextPage, error) {
	pageSize := positive.Or(q.PageSize, a2a.DefaultPageSize)
	t := s.times()
	before := ""
	if q.Cursor != "" {
		sk, _, err := decodeCursor(q.Cursor)
		if err != nil {
			return store.ContextPage{}, err
		}
		before = sk
	}
	partitions := ownerPartitions(q.Owner)
	walkPage := contextWalkPage(pageSize)
	w, err := s.walkIndex(partitions, indexQuery(indexByOwner, attrListOwner, "", before,
		expression.Name(attrExpiresAt).GreaterThan(expression.Value(t.unix))), chunkOf(int(walkPage), len(partitions)), before)
	if err != nil {
		return store.ContextPage{}, fmt.Errorf("dynamo: build context list query: %w", err)
	}
	var page store.ContextPage
	seen := map[string]bool{}
	for {
		entries, more, err := w.next(ctx, int(walkPage))
		if err != nil {
			return store.ContextPage{}, err
		}
		items := make([]map[string]dynamodb.AttributeValue, len(entries))
		for i, e := range entries {
			items[i] = e.item
		}
		walked, err := s.walkContexts(ctx, q.Owner, items, seen, t)
		if err != nil {
			return store.ContextPage{}, err
		}
		for i, w := range walked {
			if w.rec != nil {
				page.Contexts = append(page.Contexts, *w.rec)
			}
			if len(page.Contexts) == pageSize {
				if i < len(walked)-1 || more {
					page.NextCursor = encodeCursor(w.listSK)
				}
				return page, nil
			}
		}
		if !more {
			return page, nil
		}
	}
}

// walkedTask is one task of a ListContexts walk: its place, and the record
// of the context listed there, if any.
type walkedTask struct {
	listSK string
	rec    *store.ContextRecord
}

// walkContexts reads the contexts of a page of byOwner entries: one
// BatchGetItem of their task items, then, for each context not seen
// before, one Query of its entries, eight at a time. A context is listed at
// a task that is its newest.
func (s *Store) walkContexts(ctx context.Context, owner string, entries []map[string]dynamodb.AttributeValue, seen map[string]bool, t clockTimes) ([]walkedTask, error) {
	walked := make([]walkedTask, len(entries))
	ids := make([]string, len(entries))
	for i, m := range entries {
		id, sk, err := listEntry(m)
		if err != nil {
			return nil, err
		}
		ids[i], walked[i].listSK = id, sk
	}
	keys := make([]map[string]dynamodb.AttributeValue, len(ids))
	for i, id := range ids {
		keys[i] = taskKey(id)
	}
	items, err := s.getItems(ctx, false, keys...)
	if err != nil {
		return nil, err
	}
	errs := make([]error, len(items))
	sem := make(chan struct{}, listReadConcurrency)
	var wg sync.WaitGroup
	for i, m := range items {
		if m == nil {
			continue
		}
		it, err := decodeTaskItem(m)
		if err != nil {
			return nil, err
		}
		if it.Owner != owner || !it.live(t) || seen[it.ContextID] {
			continue
		}
		seen[it.ContextID] = true
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			entries, err := s.contextTasks(ctx, owner, it.ContextID, t)
			if err != nil || len(entries) == 0 || entries[0].taskID != ids[i] {
				// Listed where its newest task stands: above the walk's
				// start (an earlier page), or changed just now.
				errs[i] = err
				return
			}
			rec := contextRecord(owner, it.ContextID, entries, it)
			walked[i].rec = &rec
		})
	}
	wg.Wait()
	return walked, errors.Join(errs...)
}

// ClearContext implements store.ContextStore: the byContext Query of the
// context's tasks, then one UpdateItem per task.
func (s *Store) ClearContext(ctx context.Context, owner, contextID string) error {
	t := s.times()
	entries, err := s.contextTasks(ctx, owner, contextID, t)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return store.ErrNotFound
	}
	for _, e := range entries {
		if !e.state.Terminal() {
			return &store.ContextLiveError{TaskID: e.taskID, State: e.state}
		}
	}
	for _, e := range entries {
		if err := s.expireTask(ctx, e.taskID, owner, t); err != nil {
			return err
		}
	}
	return nil
}

// expireTask makes a terminal task of owner expire now and leave the list
// indexes. A task that is gone, expired or not terminal is left as it is.
func (s *Store) expireTask(ctx context.Context, taskID, owner string, t clockTimes) error {
	cond := expression.Name(attrOwner).Equal(expression.Value(owner)).
		And(expression.Name(attrExpiresAt).GreaterThan(expression.Value(t.unix))).
		And(inStates(terminalStates))
	upd := expression.Set(expression.Name(attrExpiresAt), expression.Value(t.unix)).
		Remove(expression.Name(attrListOwner)).Remove(expression.Name(attrListContext)).Remove(expression.Name(attrListSK))
	e, err := expression.NewBuilder().WithCondition(cond).WithUpdate(upd).Build()
	if err != nil {
		return fmt.Errorf("dynamo: build task expiry: %w", err)
	}
	_, err = s.updateItem(ctx, &dynamodb.UpdateItemInput{
		Key: taskKey(taskID), ConditionExpression: e.Condition(), UpdateExpression: e.Update(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
	})
	if _, failed := conditionFailedItem(err); failed {
		return nil
	}
	return err
}

// SetFeedback implements store.ContextStore with one conditional
// UpdateItem of the task item: it must be live and terminal.
func (s *Store) SetFeedback(ctx context.Context, taskID string, f store.Feedback) error {
	if !validTaskID(taskID) {
		return store.ErrNotFound
	}
	b, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("dynamo: encode feedback: %w", err)
	}
	t := s.times()
	cond := s.liveTaskCond(t).
		And(inStates(terminalStates))
	e, err := expression.NewBuilder().WithCondition(cond).
		WithUpdate(expression.Set(expression.Name(attrFeedback), expression.Value(string(b)))).Build()
	if err != nil {
		return fmt.Errorf("dynamo: build feedback update: %w", err)
	}
	_, err = s.updateItem(ctx, taskUpdateIf(taskID, e))
	old, failed := conditionFailedItem(err)
	if !failed {
		return err
	}
	it, err := liveTask(old, t)
	if err != nil {
		return err
	}
	return &store.ConflictError{Reason: store.ConflictState, State: a2a.TaskState(it.State), Version: it.Version}
}
