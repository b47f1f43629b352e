package dynamo

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb/expression"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// listReadConcurrency bounds the per-task reads of one list page that asks
// for history or artifacts.
const listReadConcurrency = 8

// ListTasks implements store.TaskStore on the byOwner index (its
// ownerShards partitions of the owner, merged), or byContext when
// q.ContextID is set, newest status first (ties by task id, descending).
// StatusAfter is part of the key condition; the state and expiry are
// filtered on the index's projected attributes. Costs:
//
//   - the page: one descending index Query per partition, each of about
//     its share of the page (more when filters drop many index entries,
//     or when the page's tasks are not spread evenly over the shards),
//     then one BatchGetItem of the page's task items, or, when the query
//     asks for history or artifacts, one Query per task as GetTask does,
//     eight at a time;
//   - Total: one COUNT Query per partition over the matching index
//     entries, which reads every one of them (about 150 bytes each: 0.5
//     read units per ~27 tasks, eventually consistent, and at least 0.5 a
//     partition).
//
// Indexes are eventually consistent: a task changed a moment ago may be
// listed, filtered or counted as it was. The cursor is the index sort key
// of the page's last task (every partition is read from below it); a
// cursor this store did not issue is an *a2a.Error (invalid params).
func (s *Store) ListTasks(ctx context.Context, q store.ListQuery) (store.ListPage, error) {
	pageSize := positive.Or(q.PageSize, a2a.DefaultPageSize)
	t := s.times()
	index, attr, partitions := indexByOwner, attrListOwner, ownerPartitions(q.Owner)
	if q.ContextID != "" {
		index, attr, partitions = indexByContext, attrListContext, []string{listContextKey(q.Owner, q.ContextID)}
	}
	// Entries later than StatusAfter: listSK = <timestamp>#<id> sorts after
	// <StatusAfter>$ exactly when the timestamp is later ('$' follows '#').
	lowest := ""
	if q.StatusAfter != "" {
		lowest = q.StatusAfter + "$"
	}
	filter := expression.Name(attrExpiresAt).GreaterThan(expression.Value(t.unix))
	if q.State != "" {
		filter = filter.And(expression.Name(attrState).Equal(expression.Value(string(q.State))))
	}
	total, err := s.countIndex(ctx, partitions, indexQuery(index, attr, lowest, "", filter))
	if err != nil {
		return store.ListPage{}, err
	}
	page := store.ListPage{Total: total}
	before := ""
	if q.Cursor != "" {
		sk, _, err := decodeCursor(q.Cursor)
		if err != nil {
			return store.ListPage{}, err
		}
		if sk <= lowest {
			return page, nil // the previous page ended at the range's end
		}
		before = sk
	}
	// The page and the entry that tells whether another page follows,
	// mostly in one Query per partition.
	w, err := s.walkIndex(partitions, indexQuery(index, attr, lowest, before, filter), chunkOf(pageSize+1, len(partitions)), before)
	if err != nil {
		return store.ListPage{}, fmt.Errorf("dynamo: build list query: %w", err)
	}
	entries, more, err := w.next(ctx, pageSize)
	if err != nil {
		return store.ListPage{}, err
	}
	ids := make([]string, len(entries))
	for i, e := range entries {
		id, _, err := listEntry(e.item)
		if err != nil {
			return store.ListPage{}, err
		}
		ids[i] = id
	}
	if more && len(entries) > 0 {
		page.NextCursor = encodeCursor(entries[len(entries)-1].sk)
	}
	recs, err := s.readPage(ctx, ids, q)
	if err != nil {
		return store.ListPage{}, err
	}
	page.Tasks = recs
	return page, nil
}

// listEntry reads the task id and the sort key of a byOwner or byContext
// index entry.
func listEntry(m map[string]dynamodb.AttributeValue) (taskID, sk string, err error) {
	pk, _ := m[attrPK].(*dynamodb.AttributeValueMemberS)
	lsk, _ := m[attrListSK].(*dynamodb.AttributeValueMemberS)
	if pk == nil || lsk == nil {
		return "", "", errors.New("dynamo: list index entry without the task's key or its sort key")
	}
	return taskIDFromPK(pk.Value), lsk.Value, nil
}

// count returns the number of index entries a query matches.
func (s *Store) count(ctx context.Context, in *dynamodb.QueryInput) (int, error) {
	in.Select = dynamodb.SelectCount
	n := 0
	for {
		out, err := s.query(ctx, in)
		if err != nil {
			return 0, err
		}
		n += int(out.Count)
		if out.LastEvaluatedKey == nil {
			return n, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// readPage reads the listed tasks in order, with the history and artifacts
// q asks for. Tasks that expired or vanished since the index was read are
// left out.
func (s *Store) readPage(ctx context.Context, ids []string, q store.ListQuery) ([]store.TaskRecord, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	recs := make([]*store.TaskRecord, len(ids))
	if q.HistoryLength == 0 && !q.IncludeArtifacts {
		if err := s.batchRead(ctx, ids, recs); err != nil {
			return nil, err
		}
	} else {
		errs := make([]error, len(ids))
		sem := make(chan struct{}, listReadConcurrency)
		var wg sync.WaitGroup
		for i, taskID := range ids {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				rec, err := s.GetTask(ctx, taskID, store.GetOptions{HistoryLength: q.HistoryLength, IncludeArtifacts: q.IncludeArtifacts})
				if !errors.Is(err, store.ErrNotFound) {
					recs[i], errs[i] = rec, err
				}
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
	}
	out := make([]store.TaskRecord, 0, len(ids))
	for _, r := range recs {
		if r != nil && r.Owner == q.Owner {
			out = append(out, *r)
		}
	}
	return out, nil
}

// batchRead reads task items (eventually consistent, like the index that
// named them) into recs, in the order of ids.
func (s *Store) batchRead(ctx context.Context, ids []string, recs []*store.TaskRecord) error {
	keys := make([]map[string]dynamodb.AttributeValue, len(ids))
	for i, taskID := range ids {
		keys[i] = taskKey(taskID)
	}
	items, err := s.getItems(ctx, false, keys...)
	if err != nil {
		return err
	}
	t := s.times()
	for i, m := range items {
		if m == nil {
			continue
		}
		it, err := decodeTaskItem(m)
		if err != nil {
			return err
		}
		if !it.live(t) {
			continue
		}
		if recs[i], err = it.record(); err != nil {
			return err
		}
	}
	return nil
}
