// Package dynamocost counts the DynamoDB requests a piece of code makes and
// estimates the capacity units DynamoDB would charge for them. moto, the
// local stand-in, reports placeholder capacity (a fixed 1.0 or 0.5 per
// request, nothing for transactions), so the estimate applies DynamoDB's
// published rules to the sizes of the items actually read and written:
//
//   - item size: attribute names plus values (strings and binaries by
//     length, numbers 1 byte per two significant digits plus 1, lists and
//     maps 3 bytes plus 1 per element);
//   - reads: 4 KB units, per request for Query (the items it evaluated) and
//     per item for GetItem and BatchGetItem; strongly consistent reads cost
//     1 unit per 4 KB, eventually consistent ones (and every index read)
//     0.5; at least one unit's worth per request;
//   - writes: 1 KB units of the larger of the item before and after, at
//     least 1 per item; items of a transaction cost twice;
//   - global secondary indexes: a table write that adds an index entry
//     costs one index write, one that moves it (its key changes) two, one
//     that changes only projected attributes one; 1 KB units of the index
//     entry, not doubled for transactions.
//
// To know the sizes, the Meter reads every written item before and after
// the write, outside the count. Use it in tests only.
package dynamocost

import (
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
)

// Counts are what requests cost.
type Counts struct {
	// Requests counts requests by operation.
	Requests map[string]int
	// Read and Write are the estimated read and write capacity units
	// (request units, in on-demand mode); IndexWrite is the part of Write
	// spent on global secondary indexes.
	Read, Write, IndexWrite float64
}

// Total is the number of requests.
func (c Counts) Total() int {
	n := 0
	for _, v := range c.Requests {
		n += v
	}
	return n
}

// Ops lists the requests as "2×Query, 1×UpdateItem", by operation name.
func (c Counts) Ops() string {
	var parts []string
	for _, op := range slices.Sorted(maps.Keys(c.Requests)) {
		parts = append(parts, fmt.Sprintf("%d×%s", c.Requests[op], op))
	}
	return strings.Join(parts, ", ")
}

type index struct {
	name      string
	keys      []string // partition and sort key
	projected []string // non-key attributes (nil with ALL: every attribute)
	all       bool
}

// Meter is a DynamoDB client (the methods the task store uses) that counts.
type Meter struct {
	*dynamodb.Client
	table   string
	keys    []string
	indexes []index

	mu     sync.Mutex
	counts Counts
}

// New returns a meter of requests to table through client.
func New(ctx context.Context, client *dynamodb.Client, table string) (*Meter, error) {
	d, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return nil, fmt.Errorf("dynamocost: %w", err)
	}
	m := &Meter{Client: client, table: table}
	for _, k := range d.Table.KeySchema {
		m.keys = append(m.keys, aws.ToString(k.AttributeName))
	}
	for _, g := range d.Table.GlobalSecondaryIndexes {
		ix := index{name: aws.ToString(g.IndexName), projected: g.Projection.NonKeyAttributes,
			all: g.Projection.ProjectionType == dynamodb.ProjectionTypeAll}
		for _, k := range g.KeySchema {
			ix.keys = append(ix.keys, aws.ToString(k.AttributeName))
		}
		m.indexes = append(m.indexes, ix)
	}
	m.Reset()
	return m, nil
}

// Reset zeroes the counts.
func (m *Meter) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.counts = Counts{Requests: map[string]int{}}
}

// Counts returns the counts since the last Reset.
func (m *Meter) Counts() Counts {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.counts
	c.Requests = maps.Clone(c.Requests)
	return c
}

func (m *Meter) add(op string, read, write, indexWrite float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if os.Getenv("DYNAMOCOST_TRACE") != "" {
		fmt.Fprintf(os.Stderr, "dynamocost: %s read=%.1f write=%.1f index=%.1f\n", op, read, write, indexWrite)
	}
	m.counts.Requests[op]++
	m.counts.Read += read
	m.counts.Write += write + indexWrite
	m.counts.IndexWrite += indexWrite
}

// GetItem counts one read of the item.
func (m *Meter) GetItem(ctx context.Context, in *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
	out, err := m.Client.GetItem(ctx, in)
	size := 0
	if out != nil {
		size = Size(out.Item)
	}
	m.add("GetItem", readUnits(size, aws.ToBool(in.ConsistentRead)), 0, 0)
	return out, err
}

// Query counts one read of the items it evaluated: those it returned, and
// as many more as the filter dropped, sized like the returned ones (or as
// index entries when it returned none).
func (m *Meter) Query(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
	out, err := m.Client.Query(ctx, in)
	size := 0
	if out != nil {
		for _, it := range out.Items {
			size += Size(it)
		}
		if dropped := int(out.ScannedCount) - len(out.Items); dropped > 0 {
			avg := indexEntryEstimate
			if len(out.Items) > 0 {
				avg = size / len(out.Items)
			}
			size += dropped * avg
		}
	}
	m.add("Query", readUnits(size, aws.ToBool(in.ConsistentRead) && in.IndexName == nil), 0, 0)
	return out, err
}

// indexEntryEstimate sizes index entries a count or a filter read but did
// not return.
const indexEntryEstimate = 150

// BatchGetItem counts one read per returned item.
func (m *Meter) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
	out, err := m.Client.BatchGetItem(ctx, in)
	read := 0.0
	if out != nil {
		for table, items := range out.Responses {
			for _, it := range items {
				read += readUnits(Size(it), aws.ToBool(in.RequestItems[table].ConsistentRead))
			}
		}
	}
	m.add("BatchGetItem", read, 0, 0)
	return out, err
}

// UpdateItem counts one write of the item and its index entries.
func (m *Meter) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
	return meterWrite(ctx, m, "UpdateItem", in.Key, func() (*dynamodb.UpdateItemOutput, error) { return m.Client.UpdateItem(ctx, in) })
}

// PutItem counts one write of the item and its index entries.
func (m *Meter) PutItem(ctx context.Context, in *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) {
	return meterWrite(ctx, m, "PutItem", m.keyOf(in.Item), func() (*dynamodb.PutItemOutput, error) { return m.Client.PutItem(ctx, in) })
}

// DeleteItem counts one write of the item and its index entries.
func (m *Meter) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput) (*dynamodb.DeleteItemOutput, error) {
	return meterWrite(ctx, m, "DeleteItem", in.Key, func() (*dynamodb.DeleteItemOutput, error) { return m.Client.DeleteItem(ctx, in) })
}

// meterWrite counts one write of the item at key by write.
func meterWrite[T any](ctx context.Context, m *Meter, op string, key map[string]dynamodb.AttributeValue, write func() (T, error)) (T, error) {
	before := m.peek(ctx, key)
	out, err := write()
	after := m.peek(ctx, key)
	w, iw := m.writeUnits(before, after, err == nil)
	if os.Getenv("DYNAMOCOST_TRACE") == "items" {
		fmt.Fprintf(os.Stderr, "dynamocost: %s item %d -> %d bytes\n", op, Size(before), Size(after))
		for k, v := range after {
			fmt.Fprintf(os.Stderr, "    %s %d\n", k, len(k)+valueSize(v))
		}
	}
	m.add(op, 0, w, iw)
	return out, err
}

// TransactWriteItems counts two writes per item, and index writes.
func (m *Meter) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
	keys := make([]map[string]dynamodb.AttributeValue, len(in.TransactItems))
	before := make([]map[string]dynamodb.AttributeValue, len(in.TransactItems))
	for i, ti := range in.TransactItems {
		switch {
		case ti.Put != nil:
			keys[i] = m.keyOf(ti.Put.Item)
		case ti.Update != nil:
			keys[i] = ti.Update.Key
		case ti.Delete != nil:
			keys[i] = ti.Delete.Key
		case ti.ConditionCheck != nil:
			keys[i] = ti.ConditionCheck.Key
		}
		before[i] = m.peek(ctx, keys[i])
	}
	out, err := m.Client.TransactWriteItems(ctx, in)
	var write, indexWrite float64
	for i, ti := range in.TransactItems {
		after := before[i]
		if ti.ConditionCheck == nil {
			after = m.peek(ctx, keys[i])
		}
		w, iw := m.writeUnits(before[i], after, err == nil && ti.ConditionCheck == nil)
		write += 2 * w
		indexWrite += iw
	}
	m.add("TransactWriteItems", 0, write, indexWrite)
	return out, err
}

func (m *Meter) keyOf(item map[string]dynamodb.AttributeValue) map[string]dynamodb.AttributeValue {
	k := map[string]dynamodb.AttributeValue{}
	for _, name := range m.keys {
		k[name] = item[name]
	}
	return k
}

// peek reads an item outside the count.
func (m *Meter) peek(ctx context.Context, key map[string]dynamodb.AttributeValue) map[string]dynamodb.AttributeValue {
	out, err := m.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(m.table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil || out == nil {
		return nil
	}
	return out.Item
}

// writeUnits are the table and index write units of changing before into
// after (written false: a refused write, charged for the item as it is).
func (m *Meter) writeUnits(before, after map[string]dynamodb.AttributeValue, written bool) (table, indexes float64) {
	table = kbUnits(max(Size(before), Size(after)))
	if !written {
		return table, 0
	}
	for _, ix := range m.indexes {
		old, cur := m.entry(ix, before), m.entry(ix, after)
		switch {
		case old == nil && cur == nil:
		case old == nil:
			indexes += kbUnits(Size(cur))
		case cur == nil:
			indexes += kbUnits(Size(old))
		case !equalAttrs(old, cur, ix.keys):
			indexes += kbUnits(Size(old)) + kbUnits(Size(cur))
		case !maps.EqualFunc(old, cur, func(x, y dynamodb.AttributeValue) bool { return reflect.DeepEqual(x, y) }):
			indexes += kbUnits(Size(cur))
		}
	}
	return table, indexes
}

// entry is an item's index entry, or nil when the item is not indexed.
func (m *Meter) entry(ix index, item map[string]dynamodb.AttributeValue) map[string]dynamodb.AttributeValue {
	if item == nil {
		return nil
	}
	for _, k := range ix.keys {
		if _, ok := item[k]; !ok {
			return nil
		}
	}
	if ix.all {
		return item
	}
	e := map[string]dynamodb.AttributeValue{}
	for _, k := range slices.Concat(m.keys, ix.keys, ix.projected) {
		if v, ok := item[k]; ok {
			e[k] = v
		}
	}
	return e
}

func equalAttrs(a, b map[string]dynamodb.AttributeValue, names []string) bool {
	for _, n := range names {
		if !reflect.DeepEqual(a[n], b[n]) {
			return false
		}
	}
	return true
}

func readUnits(size int, consistent bool) float64 {
	units := math.Max(1, math.Ceil(float64(size)/4096))
	if !consistent {
		units /= 2
	}
	return units
}

func kbUnits(size int) float64 { return math.Max(1, math.Ceil(float64(size)/1024)) }

// Size is an item's size as DynamoDB counts it.
func Size(item map[string]dynamodb.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name) + valueSize(v)
	}
	return n
}

func valueSize(v dynamodb.AttributeValue) int {
	switch v := v.(type) {
	case *dynamodb.AttributeValueMemberS:
		return len(v.Value)
	case *dynamodb.AttributeValueMemberN:
		return numberSize(v.Value)
	case *dynamodb.AttributeValueMemberB:
		return len(v.Value)
	case *dynamodb.AttributeValueMemberBOOL, *dynamodb.AttributeValueMemberNULL:
		return 1
	case *dynamodb.AttributeValueMemberL:
		return 3 + sum(v.Value, func(e dynamodb.AttributeValue) int { return 1 + valueSize(e) })
	case *dynamodb.AttributeValueMemberM:
		n := 3
		for k, e := range v.Value {
			n += 1 + len(k) + valueSize(e)
		}
		return n
	case *dynamodb.AttributeValueMemberSS:
		return sum(v.Value, func(s string) int { return len(s) })
	case *dynamodb.AttributeValueMemberNS:
		return sum(v.Value, numberSize)
	case *dynamodb.AttributeValueMemberBS:
		return sum(v.Value, func(b []byte) int { return len(b) })
	}
	return 0
}

// sum is the total size of the elements of a list or set.
func sum[T any](elems []T, size func(T) int) int {
	n := 0
	for _, e := range elems {
		n += size(e)
	}
	return n
}

// numberSize is 1 byte per two significant digits, plus 1.
func numberSize(s string) int {
	digits := strings.Trim(strings.NewReplacer("-", "", ".", "", "+", "").Replace(strings.ToLower(strings.SplitN(s, "e", 2)[0])), "0")
	return (len(digits)+1)/2 + 1
}
