package dynamo

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/positive"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
)

// listReadConcurrency bounds the per-task reads of one list page that asks
// for history or artifacts.
const listReadConcurrency = 8

// ListTasks implements service.TaskStore on the byOwner index, or byContext
// when q.ContextID is set, newest status first (ties by task id,
// descending). StatusAfter is part of the key condition; the state and
// expiry are filtered on the index's projected attributes. Costs:
//
//   - the page: one descending index Query (more when filters drop many
//     index entries), then one BatchGetItem of the page's task items, or,
//     when the query asks for history or artifacts, one Query per task as
//     GetTask does, eight at a time;
//   - Total: one COUNT Query over the matching index entries, which reads
//     every one of them (about 150 bytes each: 0.5 read units per ~27
//     tasks, eventually consistent).
//
// Indexes are eventually consistent: a task changed a moment ago may be
// listed, filtered or counted as it was. The cursor is the index sort key
// of the page's last task; a cursor this store did not issue is an
// *a2a.Error (invalid params).
func (s *Store) ListTasks(ctx context.Context, q service.ListQuery) (service.ListPage, error) {
	pageSize := positive.Or(q.PageSize, a2a.DefaultPageSize)
	t := s.times()
	index, partition := indexByOwner, expression.Key(attrListOwner).Equal(expression.Value(listOwnerKey(q.Owner)))
	startKey := map[string]types.AttributeValue{attrListOwner: &types.AttributeValueMemberS{Value: listOwnerKey(q.Owner)}}
	if q.ContextID != "" {
		index, partition = indexByContext, expression.Key(attrListContext).Equal(expression.Value(listContextKey(q.Owner, q.ContextID)))
		startKey = map[string]types.AttributeValue{attrListContext: &types.AttributeValueMemberS{Value: listContextKey(q.Owner, q.ContextID)}}
	}
	keyCond := partition
	// Entries later than StatusAfter: listSK = <timestamp>#<id> sorts after
	// <StatusAfter>$ exactly when the timestamp is later ('$' follows '#').
	lowest := ""
	if q.StatusAfter != "" {
		lowest = q.StatusAfter + "$"
		keyCond = keyCond.And(expression.Key(attrListSK).GreaterThan(expression.Value(lowest)))
	}
	filter := expression.Name(attrExpiresAt).GreaterThan(expression.Value(t.unix))
	if q.State != "" {
		filter = filter.And(expression.Name(attrState).Equal(expression.Value(string(q.State))))
	}
	e, err := expression.NewBuilder().WithKeyCondition(keyCond).WithFilter(filter).Build()
	if err != nil {
		return service.ListPage{}, fmt.Errorf("dynamo: build list query: %w", err)
	}
	query := func() *dynamodb.QueryInput {
		return &dynamodb.QueryInput{
			IndexName: aws.String(index), KeyConditionExpression: e.KeyCondition(), FilterExpression: e.Filter(),
			ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
		}
	}

	total, err := s.count(ctx, query())
	if err != nil {
		return service.ListPage{}, err
	}
	page := service.ListPage{Total: total}
	in := query()
	in.ScanIndexForward, in.Limit = aws.Bool(false), aws.Int32(int32(pageSize+1))
	if q.Cursor != "" {
		sk, taskID, err := decodeCursor(q.Cursor)
		if err != nil {
			return service.ListPage{}, err
		}
		if sk <= lowest {
			return page, nil // the previous page ended at the range's end
		}
		startKey[attrListSK] = &types.AttributeValueMemberS{Value: sk}
		for k, v := range taskKey(taskID) {
			startKey[k] = v
		}
		in.ExclusiveStartKey = startKey
	}
	// One entry more than a page tells whether another page follows.
	var entries []map[string]types.AttributeValue
	for len(entries) <= pageSize {
		out, err := s.query(ctx, in)
		if err != nil {
			return service.ListPage{}, err
		}
		entries = append(entries, out.Items...)
		if out.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	more := len(entries) > pageSize
	entries = entries[:min(len(entries), pageSize)]
	ids := make([]string, len(entries))
	for i, m := range entries {
		id, sk, err := listEntry(m)
		if err != nil {
			return service.ListPage{}, err
		}
		ids[i] = id
		if more && i == len(entries)-1 {
			page.NextCursor = encodeCursor(sk)
		}
	}
	recs, err := s.readPage(ctx, ids, q)
	if err != nil {
		return service.ListPage{}, err
	}
	page.Tasks = recs
	return page, nil
}

// listEntry reads the task id and the sort key of a byOwner or byContext
// index entry.
func listEntry(m map[string]types.AttributeValue) (taskID, sk string, err error) {
	pk, _ := m[attrPK].(*types.AttributeValueMemberS)
	lsk, _ := m[attrListSK].(*types.AttributeValueMemberS)
	if pk == nil || lsk == nil {
		return "", "", errors.New("dynamo: list index entry without the task's key or its sort key")
	}
	return taskIDFromPK(pk.Value), lsk.Value, nil
}

// count returns the number of index entries a query matches.
func (s *Store) count(ctx context.Context, in *dynamodb.QueryInput) (int, error) {
	in.Select = types.SelectCount
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
func (s *Store) readPage(ctx context.Context, ids []string, q service.ListQuery) ([]service.TaskRecord, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	recs := make([]*service.TaskRecord, len(ids))
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
				rec, err := s.GetTask(ctx, taskID, service.GetOptions{HistoryLength: q.HistoryLength, IncludeArtifacts: q.IncludeArtifacts})
				if !errors.Is(err, service.ErrNotFound) {
					recs[i], errs[i] = rec, err
				}
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
	}
	out := make([]service.TaskRecord, 0, len(ids))
	for _, r := range recs {
		if r != nil && r.Owner == q.Owner {
			out = append(out, *r)
		}
	}
	return out, nil
}

// batchRead reads task items (eventually consistent, like the index that
// named them) into recs, in the order of ids.
func (s *Store) batchRead(ctx context.Context, ids []string, recs []*service.TaskRecord) error {
	keys := make([]map[string]types.AttributeValue, len(ids))
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
