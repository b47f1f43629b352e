// Package follow reads a task table's DynamoDB stream for the local
// server, as the push function's event source mapping does in Lambda. It is
// a package of its own so that the functions, which never read the stream
// themselves, do not link the Streams client.
package follow

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo/streamrecord"
)

// StreamsAPI is the part of the DynamoDB Streams client Changes uses;
// *dynamodbstreams.Client implements it.
type StreamsAPI interface {
	DescribeStream(ctx context.Context, in *dynamodbstreams.DescribeStreamInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

// followPoll is how often Changes asks a shard for new records when it had
// none.
const followPoll = 250 * time.Millisecond

// followListShards is how often Changes looks for new shards.
const followListShards = 10 * time.Second

// Changes reads the table's stream (its ARN: DescribeTable's
// LatestStreamArn) from now on and calls fn with every task change, in the
// stream's order within a shard, until ctx ends. It is the local server's
// stand-in for the push function's event source mapping; in Lambda, the
// mapping reads the stream and dynamo.ChangeFromStream decodes it. Errors
// are logged and retried.
func Changes(ctx context.Context, api StreamsAPI, streamARN string, fn func(store.TaskChange), log *slog.Logger) {
	log = cmp.Or(log, slog.New(slog.DiscardHandler))
	iterators := map[string]*string{} // shard id -> next iterator; nil once closed
	started := false
	// New shards appear every few hours: list them now and then, not
	// before every read (which made a busy server ask for the table's
	// stream description hundreds of times a second). The ticker paces
	// I/O, as a timeout does, so it runs in real time.
	relist := time.NewTicker(followListShards)
	defer relist.Stop()
	for ctx.Err() == nil {
		list := !started
		select {
		case <-relist.C:
			list = true
		default:
		}
		if list {
			if err := followShards(ctx, api, streamARN, iterators, !started); err != nil {
				log.WarnContext(ctx, "could not list the table stream's shards", "error", err)
			}
		}
		started = true
		idle := true
		for id, it := range iterators {
			if it == nil {
				continue
			}
			out, err := api.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it})
			if err != nil {
				if ctx.Err() == nil {
					log.WarnContext(ctx, "could not read the table stream", "shard", id, "error", err)
				}
				continue
			}
			iterators[id] = out.NextShardIterator
			for _, r := range out.Records {
				idle = false
				c, err := streamrecord.ChangeOf(r)
				if err != nil {
					log.ErrorContext(ctx, "skipped a stream record that does not decode", "event_id", aws.ToString(r.EventID), "error", err)
					continue
				}
				if c != nil {
					fn(*c)
				}
			}
		}
		if idle {
			select {
			case <-ctx.Done():
			case <-time.After(followPoll):
			}
		}
	}
}

// followShards adds the stream's new shards to iterators: at their latest
// record when the follow starts (what happened before is not news), from
// their first record when they appear later.
func followShards(ctx context.Context, api StreamsAPI, streamARN string, iterators map[string]*string, start bool) error {
	desc, err := api.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(streamARN)})
	if err != nil {
		return err
	}
	for _, sh := range desc.StreamDescription.Shards {
		id := aws.ToString(sh.ShardId)
		if _, known := iterators[id]; known {
			continue
		}
		from := streamtypes.ShardIteratorTypeTrimHorizon
		if start {
			from = streamtypes.ShardIteratorTypeLatest
		}
		out, err := api.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(streamARN), ShardId: sh.ShardId, ShardIteratorType: from})
		if err != nil {
			return fmt.Errorf("shard iterator of %s: %w", id, err)
		}
		iterators[id] = out.ShardIterator
	}
	return nil
}
