package dynamodb

import "encoding/json"

// The requests and answers of the operations the client makes, with the
// API's member names (DynamoDB JSON). Optional members are pointers, as
// the AWS SDK has them, so that aws.String and aws.ToString work with them.

// ReturnConsumedCapacity asks for the capacity a request consumed.
type ReturnConsumedCapacity string

// ReturnConsumedCapacity values.
const (
	ReturnConsumedCapacityTotal   ReturnConsumedCapacity = "TOTAL"
	ReturnConsumedCapacityIndexes ReturnConsumedCapacity = "INDEXES"
	ReturnConsumedCapacityNone    ReturnConsumedCapacity = "NONE"
)

// ReturnValue asks a write for the item as it was or as it is.
type ReturnValue string

// ReturnValue values.
const (
	ReturnValueNone       ReturnValue = "NONE"
	ReturnValueAllOld     ReturnValue = "ALL_OLD"
	ReturnValueUpdatedOld ReturnValue = "UPDATED_OLD"
	ReturnValueAllNew     ReturnValue = "ALL_NEW"
	ReturnValueUpdatedNew ReturnValue = "UPDATED_NEW"
)

// ReturnValuesOnConditionCheckFailure asks a refused write for the item
// that failed its condition.
type ReturnValuesOnConditionCheckFailure string

// ReturnValuesOnConditionCheckFailure values.
const (
	ReturnValuesOnConditionCheckFailureAllOld ReturnValuesOnConditionCheckFailure = "ALL_OLD"
	ReturnValuesOnConditionCheckFailureNone   ReturnValuesOnConditionCheckFailure = "NONE"
)

// Select says what a Query returns.
type Select string

// Select values.
const (
	SelectAllAttributes          Select = "ALL_ATTRIBUTES"
	SelectAllProjectedAttributes Select = "ALL_PROJECTED_ATTRIBUTES"
	SelectSpecificAttributes     Select = "SPECIFIC_ATTRIBUTES"
	SelectCount                  Select = "COUNT"
)

// BillingMode is a table's capacity mode.
type BillingMode string

// BillingMode values.
const (
	BillingModeProvisioned   BillingMode = "PROVISIONED"
	BillingModePayPerRequest BillingMode = "PAY_PER_REQUEST"
)

// ScalarAttributeType is the type of a key attribute.
type ScalarAttributeType string

// ScalarAttributeType values.
const (
	ScalarAttributeTypeS ScalarAttributeType = "S"
	ScalarAttributeTypeN ScalarAttributeType = "N"
	ScalarAttributeTypeB ScalarAttributeType = "B"
)

// KeyType is a key attribute's role.
type KeyType string

// KeyType values.
const (
	KeyTypeHash  KeyType = "HASH"
	KeyTypeRange KeyType = "RANGE"
)

// ProjectionType says which attributes an index keeps.
type ProjectionType string

// ProjectionType values.
const (
	ProjectionTypeAll      ProjectionType = "ALL"
	ProjectionTypeKeysOnly ProjectionType = "KEYS_ONLY"
	ProjectionTypeInclude  ProjectionType = "INCLUDE"
)

// StreamViewType says what a table's stream records hold.
type StreamViewType string

// StreamViewType values.
const (
	StreamViewTypeNewImage        StreamViewType = "NEW_IMAGE"
	StreamViewTypeOldImage        StreamViewType = "OLD_IMAGE"
	StreamViewTypeNewAndOldImages StreamViewType = "NEW_AND_OLD_IMAGES"
	StreamViewTypeKeysOnly        StreamViewType = "KEYS_ONLY"
)

// TableStatus is a table's state.
type TableStatus string

// TableStatus values.
const (
	TableStatusCreating TableStatus = "CREATING"
	TableStatusUpdating TableStatus = "UPDATING"
	TableStatusDeleting TableStatus = "DELETING"
	TableStatusActive   TableStatus = "ACTIVE"
)

// TimeToLiveStatus is the state of a table's TTL.
type TimeToLiveStatus string

// TimeToLiveStatus values.
const (
	TimeToLiveStatusEnabling  TimeToLiveStatus = "ENABLING"
	TimeToLiveStatusDisabling TimeToLiveStatus = "DISABLING"
	TimeToLiveStatusEnabled   TimeToLiveStatus = "ENABLED"
	TimeToLiveStatusDisabled  TimeToLiveStatus = "DISABLED"
)

// Capacity is the capacity consumed of a table or an index.
type Capacity struct {
	CapacityUnits      *float64 `json:",omitempty"`
	ReadCapacityUnits  *float64 `json:",omitempty"`
	WriteCapacityUnits *float64 `json:",omitempty"`
}

// ConsumedCapacity is the capacity a request consumed.
type ConsumedCapacity struct {
	TableName              *string             `json:",omitempty"`
	CapacityUnits          *float64            `json:",omitempty"`
	ReadCapacityUnits      *float64            `json:",omitempty"`
	WriteCapacityUnits     *float64            `json:",omitempty"`
	Table                  *Capacity           `json:",omitempty"`
	GlobalSecondaryIndexes map[string]Capacity `json:",omitempty"`
	LocalSecondaryIndexes  map[string]Capacity `json:",omitempty"`
}

// GetItemInput reads one item.
type GetItemInput struct {
	TableName                *string
	Key                      map[string]AttributeValue
	ConsistentRead           *bool                  `json:",omitempty"`
	ProjectionExpression     *string                `json:",omitempty"`
	ExpressionAttributeNames map[string]string      `json:",omitempty"`
	ReturnConsumedCapacity   ReturnConsumedCapacity `json:",omitempty"`
}

// GetItemOutput is the item read: nil when there is none.
type GetItemOutput struct {
	Item             map[string]AttributeValue
	ConsumedCapacity *ConsumedCapacity
}

// QueryInput reads the items of one partition of a table or an index.
type QueryInput struct {
	TableName                 *string
	IndexName                 *string                   `json:",omitempty"`
	KeyConditionExpression    *string                   `json:",omitempty"`
	FilterExpression          *string                   `json:",omitempty"`
	ProjectionExpression      *string                   `json:",omitempty"`
	ExpressionAttributeNames  map[string]string         `json:",omitempty"`
	ExpressionAttributeValues map[string]AttributeValue `json:",omitempty"`
	ConsistentRead            *bool                     `json:",omitempty"`
	ScanIndexForward          *bool                     `json:",omitempty"`
	Limit                     *int32                    `json:",omitempty"`
	ExclusiveStartKey         map[string]AttributeValue `json:",omitempty"`
	Select                    Select                    `json:",omitempty"`
	ReturnConsumedCapacity    ReturnConsumedCapacity    `json:",omitempty"`
}

// QueryOutput is one page of a Query.
type QueryOutput struct {
	Items            []map[string]AttributeValue
	Count            int32
	ScannedCount     int32
	LastEvaluatedKey map[string]AttributeValue
	ConsumedCapacity *ConsumedCapacity
}

// ScanInput reads one page of every item of a table or an index.
type ScanInput struct {
	TableName                 *string
	IndexName                 *string                   `json:",omitempty"`
	FilterExpression          *string                   `json:",omitempty"`
	ProjectionExpression      *string                   `json:",omitempty"`
	ExpressionAttributeNames  map[string]string         `json:",omitempty"`
	ExpressionAttributeValues map[string]AttributeValue `json:",omitempty"`
	ConsistentRead            *bool                     `json:",omitempty"`
	Limit                     *int32                    `json:",omitempty"`
	ExclusiveStartKey         map[string]AttributeValue `json:",omitempty"`
	ReturnConsumedCapacity    ReturnConsumedCapacity    `json:",omitempty"`
}

// ScanOutput is one page of a Scan (a QueryOutput's members).
type ScanOutput QueryOutput

func (o *ScanOutput) UnmarshalJSON(b []byte) error { return (*QueryOutput)(o).UnmarshalJSON(b) }

// PutItemInput writes an item whole.
type PutItemInput struct {
	TableName                           *string
	Item                                map[string]AttributeValue
	ConditionExpression                 *string                             `json:",omitempty"`
	ExpressionAttributeNames            map[string]string                   `json:",omitempty"`
	ExpressionAttributeValues           map[string]AttributeValue           `json:",omitempty"`
	ReturnValues                        ReturnValue                         `json:",omitempty"`
	ReturnValuesOnConditionCheckFailure ReturnValuesOnConditionCheckFailure `json:",omitempty"`
	ReturnConsumedCapacity              ReturnConsumedCapacity              `json:",omitempty"`
}

// PutItemOutput holds the item as it was, when asked (ReturnValues).
type PutItemOutput struct {
	Attributes       map[string]AttributeValue
	ConsumedCapacity *ConsumedCapacity
}

// UpdateItemInput changes attributes of an item (creating it when it is
// missing).
type UpdateItemInput struct {
	TableName                           *string
	Key                                 map[string]AttributeValue
	UpdateExpression                    *string                             `json:",omitempty"`
	ConditionExpression                 *string                             `json:",omitempty"`
	ExpressionAttributeNames            map[string]string                   `json:",omitempty"`
	ExpressionAttributeValues           map[string]AttributeValue           `json:",omitempty"`
	ReturnValues                        ReturnValue                         `json:",omitempty"`
	ReturnValuesOnConditionCheckFailure ReturnValuesOnConditionCheckFailure `json:",omitempty"`
	ReturnConsumedCapacity              ReturnConsumedCapacity              `json:",omitempty"`
}

// UpdateItemOutput holds the attributes ReturnValues asked for.
type UpdateItemOutput struct {
	Attributes       map[string]AttributeValue
	ConsumedCapacity *ConsumedCapacity
}

// DeleteItemInput deletes an item.
type DeleteItemInput struct {
	TableName                           *string
	Key                                 map[string]AttributeValue
	ConditionExpression                 *string                             `json:",omitempty"`
	ExpressionAttributeNames            map[string]string                   `json:",omitempty"`
	ExpressionAttributeValues           map[string]AttributeValue           `json:",omitempty"`
	ReturnValues                        ReturnValue                         `json:",omitempty"`
	ReturnValuesOnConditionCheckFailure ReturnValuesOnConditionCheckFailure `json:",omitempty"`
	ReturnConsumedCapacity              ReturnConsumedCapacity              `json:",omitempty"`
}

// DeleteItemOutput holds the item as it was, when asked (ReturnValues).
type DeleteItemOutput struct {
	Attributes       map[string]AttributeValue
	ConsumedCapacity *ConsumedCapacity
}

// TransactWriteItemsInput writes items all or none.
type TransactWriteItemsInput struct {
	TransactItems          []TransactWriteItem
	ClientRequestToken     *string                `json:",omitempty"`
	ReturnConsumedCapacity ReturnConsumedCapacity `json:",omitempty"`
}

// TransactWriteItemsOutput is the capacity a transaction consumed, by
// table.
type TransactWriteItemsOutput struct {
	ConsumedCapacity []ConsumedCapacity
}

// TransactWriteItem is one write of a transaction: exactly one member set.
type TransactWriteItem struct {
	ConditionCheck *ConditionCheck `json:",omitempty"`
	Put            *Put            `json:",omitempty"`
	Update         *Update         `json:",omitempty"`
	Delete         *Delete         `json:",omitempty"`
}

// ConditionCheck checks a condition on an item of a transaction.
type ConditionCheck struct {
	TableName                           *string
	Key                                 map[string]AttributeValue
	ConditionExpression                 *string
	ExpressionAttributeNames            map[string]string                   `json:",omitempty"`
	ExpressionAttributeValues           map[string]AttributeValue           `json:",omitempty"`
	ReturnValuesOnConditionCheckFailure ReturnValuesOnConditionCheckFailure `json:",omitempty"`
}

// Put writes an item whole in a transaction.
type Put struct {
	TableName                           *string
	Item                                map[string]AttributeValue
	ConditionExpression                 *string                             `json:",omitempty"`
	ExpressionAttributeNames            map[string]string                   `json:",omitempty"`
	ExpressionAttributeValues           map[string]AttributeValue           `json:",omitempty"`
	ReturnValuesOnConditionCheckFailure ReturnValuesOnConditionCheckFailure `json:",omitempty"`
}

// Update changes an item in a transaction.
type Update struct {
	TableName                           *string
	Key                                 map[string]AttributeValue
	UpdateExpression                    *string
	ConditionExpression                 *string                             `json:",omitempty"`
	ExpressionAttributeNames            map[string]string                   `json:",omitempty"`
	ExpressionAttributeValues           map[string]AttributeValue           `json:",omitempty"`
	ReturnValuesOnConditionCheckFailure ReturnValuesOnConditionCheckFailure `json:",omitempty"`
}

// Delete deletes an item in a transaction.
type Delete struct {
	TableName                           *string
	Key                                 map[string]AttributeValue
	ConditionExpression                 *string                             `json:",omitempty"`
	ExpressionAttributeNames            map[string]string                   `json:",omitempty"`
	ExpressionAttributeValues           map[string]AttributeValue           `json:",omitempty"`
	ReturnValuesOnConditionCheckFailure ReturnValuesOnConditionCheckFailure `json:",omitempty"`
}

// KeysAndAttributes are the keys of a BatchGetItem to read of one table.
type KeysAndAttributes struct {
	Keys                     []map[string]AttributeValue
	ConsistentRead           *bool             `json:",omitempty"`
	ProjectionExpression     *string           `json:",omitempty"`
	ExpressionAttributeNames map[string]string `json:",omitempty"`
}

// BatchGetItemInput reads items by key, of up to 100 keys.
type BatchGetItemInput struct {
	RequestItems           map[string]KeysAndAttributes
	ReturnConsumedCapacity ReturnConsumedCapacity `json:",omitempty"`
}

// BatchGetItemOutput are the items found, by table, and the keys left
// for another request.
type BatchGetItemOutput struct {
	Responses        map[string][]map[string]AttributeValue
	UnprocessedKeys  map[string]KeysAndAttributes
	ConsumedCapacity []ConsumedCapacity
}

// AttributeDefinition declares a key attribute's type.
type AttributeDefinition struct {
	AttributeName *string
	AttributeType ScalarAttributeType
}

// KeySchemaElement is one key attribute of a table or an index.
type KeySchemaElement struct {
	AttributeName *string
	KeyType       KeyType
}

// Projection says which attributes an index keeps.
type Projection struct {
	ProjectionType   ProjectionType `json:",omitempty"`
	NonKeyAttributes []string       `json:",omitempty"`
}

// GlobalSecondaryIndex declares an index of a new table.
type GlobalSecondaryIndex struct {
	IndexName  *string
	KeySchema  []KeySchemaElement
	Projection *Projection
}

// GlobalSecondaryIndexDescription describes an index of a table.
type GlobalSecondaryIndexDescription struct {
	IndexName   *string
	IndexStatus string
	KeySchema   []KeySchemaElement
	Projection  *Projection
}

// StreamSpecification is a table's stream.
type StreamSpecification struct {
	StreamEnabled  *bool
	StreamViewType StreamViewType `json:",omitempty"`
}

// BillingModeSummary is a table's capacity mode.
type BillingModeSummary struct {
	BillingMode BillingMode
}

// TableDescription describes a table.
type TableDescription struct {
	TableName              *string
	TableArn               *string
	TableStatus            TableStatus
	AttributeDefinitions   []AttributeDefinition
	KeySchema              []KeySchemaElement
	GlobalSecondaryIndexes []GlobalSecondaryIndexDescription
	BillingModeSummary     *BillingModeSummary
	StreamSpecification    *StreamSpecification
	LatestStreamArn        *string
	ItemCount              *int64
}

// CreateTableInput declares a table.
type CreateTableInput struct {
	TableName              *string
	AttributeDefinitions   []AttributeDefinition
	KeySchema              []KeySchemaElement
	GlobalSecondaryIndexes []GlobalSecondaryIndex `json:",omitempty"`
	BillingMode            BillingMode            `json:",omitempty"`
	StreamSpecification    *StreamSpecification   `json:",omitempty"`
}

// CreateTableOutput describes the table being created.
type CreateTableOutput struct {
	TableDescription *TableDescription
}

// DescribeTableInput names a table.
type DescribeTableInput struct {
	TableName *string
}

// DescribeTableOutput describes it.
type DescribeTableOutput struct {
	Table *TableDescription
}

// DeleteTableInput names a table to delete.
type DeleteTableInput struct {
	TableName *string
}

// DeleteTableOutput describes the table being deleted.
type DeleteTableOutput struct {
	TableDescription *TableDescription
}

// TimeToLiveSpecification turns a table's TTL on or off.
type TimeToLiveSpecification struct {
	AttributeName *string
	Enabled       *bool
}

// UpdateTimeToLiveInput changes a table's TTL.
type UpdateTimeToLiveInput struct {
	TableName               *string
	TimeToLiveSpecification *TimeToLiveSpecification
}

// UpdateTimeToLiveOutput is the TTL asked for.
type UpdateTimeToLiveOutput struct {
	TimeToLiveSpecification *TimeToLiveSpecification
}

// DescribeTimeToLiveInput names a table.
type DescribeTimeToLiveInput struct {
	TableName *string
}

// TimeToLiveDescription is a table's TTL.
type TimeToLiveDescription struct {
	AttributeName    *string
	TimeToLiveStatus TimeToLiveStatus
}

// DescribeTimeToLiveOutput describes a table's TTL.
type DescribeTimeToLiveOutput struct {
	TimeToLiveDescription *TimeToLiveDescription
}

// The answers of GetItem and Query, the store's reads, are read in one
// pass of the decoder (readAnswer), once their syntax is checked
// (decodeAnswer, or encoding/json before it calls UnmarshalJSON);
// encoding/json reads only their small members.

func (o *GetItemOutput) UnmarshalJSON(b []byte) error { return o.readAnswer(b) }

func (o *QueryOutput) UnmarshalJSON(b []byte) error { return o.readAnswer(b) }

func (o *GetItemOutput) readAnswer(b []byte) error {
	var out GetItemOutput
	d := decoder{b: b}
	err := d.answer(func(key string) (err error) {
		switch key {
		case "Item":
			out.Item, err = d.item()
		case "ConsumedCapacity":
			err = d.decode(&out.ConsumedCapacity)
		default:
			d.skip()
		}
		return err
	})
	*o = out
	return err
}

func (o *QueryOutput) readAnswer(b []byte) error {
	var out QueryOutput
	d := decoder{b: b}
	err := d.answer(func(key string) (err error) {
		switch key {
		case "Items":
			if d.null() {
				out.Items = nil
				return nil
			}
			out.Items = []map[string]AttributeValue{}
			return d.elements(func() error {
				item, err := d.item()
				out.Items = append(out.Items, item)
				return err
			})
		case "Count":
			err = d.decode(&out.Count)
		case "ScannedCount":
			err = d.decode(&out.ScannedCount)
		case "LastEvaluatedKey":
			out.LastEvaluatedKey, err = d.item()
		case "ConsumedCapacity":
			err = d.decode(&out.ConsumedCapacity)
		default:
			d.skip()
		}
		return err
	})
	*o = out
	return err
}

// The other answers that carry items (PutItem, UpdateItem, DeleteItem,
// BatchGetItem) decode through wire items (see attributevalue.go).

// attributesOutput is the answer of PutItem, UpdateItem and DeleteItem.
type attributesOutput struct {
	Attributes       wireItem
	ConsumedCapacity *ConsumedCapacity
}

func decodeAttributes(b []byte) (map[string]AttributeValue, *ConsumedCapacity, error) {
	var w attributesOutput
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, nil, err
	}
	return w.Attributes, w.ConsumedCapacity, nil
}

func (o *PutItemOutput) UnmarshalJSON(b []byte) (err error) {
	o.Attributes, o.ConsumedCapacity, err = decodeAttributes(b)
	return err
}

func (o *UpdateItemOutput) UnmarshalJSON(b []byte) (err error) {
	o.Attributes, o.ConsumedCapacity, err = decodeAttributes(b)
	return err
}

func (o *DeleteItemOutput) UnmarshalJSON(b []byte) (err error) {
	o.Attributes, o.ConsumedCapacity, err = decodeAttributes(b)
	return err
}

func (k *KeysAndAttributes) UnmarshalJSON(b []byte) error {
	var w struct {
		Keys                     []wireItem
		ConsistentRead           *bool
		ProjectionExpression     *string
		ExpressionAttributeNames map[string]string
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*k = KeysAndAttributes{Keys: items(w.Keys), ConsistentRead: w.ConsistentRead, ProjectionExpression: w.ProjectionExpression, ExpressionAttributeNames: w.ExpressionAttributeNames}
	return nil
}

func (o *BatchGetItemOutput) UnmarshalJSON(b []byte) error {
	var w struct {
		Responses        map[string][]wireItem
		UnprocessedKeys  map[string]KeysAndAttributes
		ConsumedCapacity []ConsumedCapacity
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*o = BatchGetItemOutput{UnprocessedKeys: w.UnprocessedKeys, ConsumedCapacity: w.ConsumedCapacity}
	if w.Responses != nil {
		o.Responses = make(map[string][]map[string]AttributeValue, len(w.Responses))
		for t, ws := range w.Responses {
			o.Responses[t] = items(ws)
		}
	}
	return nil
}
