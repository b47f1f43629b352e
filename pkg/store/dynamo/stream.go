package dynamo

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/aws/aws-lambda-go/events"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// ChangeFromStream reads one record of the table's stream (view type
// NEW_AND_OLD_IMAGES, as a Lambda event source mapping delivers it, or as
// GetRecords returns it: pkg/internal/streamscall) and
// returns the task change webhooks are told about, or nil when the record
// is not one: an item other than a task (an idempotency record kept at a
// task's key included), a task without push configs, a new task that is still submitted (its creator
// has the answer already), a task removed by TTL, a write that did not
// move the version (a push config added or removed), or an update that
// changed neither the status nor completed an artifact. A task created
// already at work or finished (its first step ran before it was written)
// is a change from submitted. It reports the same changes as the memory
// store's OnChange.
func ChangeFromStream(r events.DynamoDBEventRecord) (*store.TaskChange, error) {
	insert := r.EventName == string(events.DynamoDBOperationTypeInsert)
	if !insert && r.EventName != string(events.DynamoDBOperationTypeModify) {
		return nil, nil
	}
	if sk := r.Change.Keys[attrSK]; sk.DataType() != events.DataTypeString || sk.String() != skTask {
		return nil, nil
	}
	return changeOfImages(r.EventID, insert, r.Change.NewImage, r.Change.OldImage, fromStream)
}

// changeOfImages is the change a task item's stream record shows, from its
// images as its kind of record holds them, which convert turns into the
// store's; an insert has no old image.
func changeOfImages[V any](eventID string, insert bool, newImage, oldImage map[string]V, convert func(V) (dynamodb.AttributeValue, error)) (*store.TaskChange, error) {
	if newImage == nil || (!insert && oldImage == nil) {
		return nil, fmt.Errorf("dynamo: stream record %s has no images: the stream's view type must be NEW_AND_OLD_IMAGES", eventID)
	}
	if insert {
		oldImage = nil
	}
	newer, err := convertImage(newImage, convert)
	if err != nil {
		return nil, err
	}
	older, err := convertImage(oldImage, convert)
	if err != nil {
		return nil, err
	}
	return changeOf(newer, older)
}

// TraceFromStream returns the X-Ray trace header a stream record's task
// was last changed under (the new image's trace attribute), or "" when the
// record has none: its delivery jobs carry it, so that the deliver
// function joins the task's trace.
func TraceFromStream(r events.DynamoDBEventRecord) string {
	if v, ok := r.Change.NewImage[attrTrace]; ok && v.DataType() == events.DataTypeString {
		return v.String()
	}
	return ""
}

// changeOf is the change between two images of a task item.
func changeOf(newImage, oldImage map[string]dynamodb.AttributeValue) (*store.TaskChange, error) {
	newer, err := decodeTaskItem(newImage)
	if err != nil || newer.RecordOf != "" {
		return nil, err
	}
	if len(newer.PushConfigs) == 0 {
		// A task without webhooks: nobody to tell, as the memory store
		// says. (The push function's stream filter drops the records of
		// tasks that never had one before they reach it, see hasPush.)
		return nil, nil
	}
	older, err := decodeTaskItem(oldImage)
	if err != nil {
		return nil, err
	}
	if older.RecordOf != "" || older.CreatedAt != newer.CreatedAt {
		// No earlier image of this task: it was created submitted.
		older = &taskItem{State: string(a2a.TaskStateSubmitted)}
	}
	if newer.Version <= older.Version || (newer.Version == 1 && newer.State == older.State) {
		return nil, nil
	}
	c := &store.TaskChange{
		Task:          a2a.Task{ID: taskIDFromPK(newer.PK), ContextID: newer.ContextID},
		Version:       newer.Version,
		ArtifactIDs:   newer.CompletedArtifacts,
		PushConfigIDs: slices.Sorted(slices.Values(newer.PushConfigs)),
		SessionID:     newer.SessionID,
	}
	if err := json.Unmarshal([]byte(newer.Status), &c.Task.Status); err != nil {
		return nil, fmt.Errorf("dynamo: decode status of task %s in the stream: %w", c.Task.ID, err)
	}
	if m := c.Task.Status.Message; m != nil {
		withIDs(m, c.Task.ID, c.Task.ContextID)
	}
	if newer.Status != older.Status {
		c.StatusChanged = store.StatusNotable(a2a.TaskState(older.State), &c.Task.Status)
	}
	if !c.Notable() {
		return nil, nil
	}
	if err := unmarshalOptional(newer.Metadata, &c.Task.Metadata); err != nil {
		return nil, fmt.Errorf("dynamo: decode metadata of task %s in the stream: %w", c.Task.ID, err)
	}
	return c, nil
}

// convertImage converts a stream image attribute by attribute.
func convertImage[V any](image map[string]V, convert func(V) (dynamodb.AttributeValue, error)) (map[string]dynamodb.AttributeValue, error) {
	m := make(map[string]dynamodb.AttributeValue, len(image))
	for k, v := range image {
		av, err := convert(v)
		if err != nil {
			return nil, fmt.Errorf("dynamo: stream attribute %s: %w", k, err)
		}
		m[k] = av
	}
	return m, nil
}

// convertList converts a stream list value element by element.
func convertList[V any](list []V, convert func(V) (dynamodb.AttributeValue, error)) (dynamodb.AttributeValue, error) {
	out := make([]dynamodb.AttributeValue, len(list))
	for i, e := range list {
		av, err := convert(e)
		if err != nil {
			return nil, err
		}
		out[i] = av
	}
	return &dynamodb.AttributeValueMemberL{Value: out}, nil
}

// fromStream converts an attribute value of a Lambda stream event to the
// store's.
func fromStream(v events.DynamoDBAttributeValue) (dynamodb.AttributeValue, error) {
	switch v.DataType() {
	case events.DataTypeString:
		return &dynamodb.AttributeValueMemberS{Value: v.String()}, nil
	case events.DataTypeNumber:
		return &dynamodb.AttributeValueMemberN{Value: v.Number()}, nil
	case events.DataTypeBinary:
		return &dynamodb.AttributeValueMemberB{Value: v.Binary()}, nil
	case events.DataTypeBoolean:
		return &dynamodb.AttributeValueMemberBOOL{Value: v.Boolean()}, nil
	case events.DataTypeNull:
		return &dynamodb.AttributeValueMemberNULL{Value: true}, nil
	case events.DataTypeStringSet:
		return &dynamodb.AttributeValueMemberSS{Value: v.StringSet()}, nil
	case events.DataTypeNumberSet:
		return &dynamodb.AttributeValueMemberNS{Value: v.NumberSet()}, nil
	case events.DataTypeBinarySet:
		return &dynamodb.AttributeValueMemberBS{Value: v.BinarySet()}, nil
	case events.DataTypeList:
		return convertList(v.List(), fromStream)
	case events.DataTypeMap:
		m, err := convertImage(v.Map(), fromStream)
		if err != nil {
			return nil, err
		}
		return &dynamodb.AttributeValueMemberM{Value: m}, nil
	}
	return nil, fmt.Errorf("unknown data type %v", v.DataType())
}
