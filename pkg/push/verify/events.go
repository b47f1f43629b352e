package verify

import (
	"container/heap"
	"sync"
	"time"
)

// eventState is what the cache knows about an event id.
type eventState int

const (
	eventNew      eventState = iota // not seen: now reserved
	eventInFlight                   // reserved by a request being handled
	eventDone                       // accepted before
)

// event is one remembered event id.
type event struct {
	id      string
	expires time.Time
	done    bool
	index   int // in the expiry heap
}

// eventCache remembers accepted event ids until they expire, with a fixed
// capacity. When full of unexpired ids it refuses new ones rather than
// forget one (which would let a replay through). It is safe for concurrent
// use.
type eventCache struct {
	mu     sync.Mutex
	max    int
	byID   map[string]*event
	expiry expiryHeap
}

func newEventCache(max int) *eventCache {
	return &eventCache{max: max, byID: map[string]*event{}}
}

// reserve looks id up and, when it is new, reserves it until expires; the
// caller then calls commit or release. It returns errCacheFull when there
// is no room.
func (c *eventCache) reserve(id string, expires, now time.Time) (eventState, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.evict(now)
	if e, ok := c.byID[id]; ok {
		if e.done {
			return eventDone, nil
		}
		return eventInFlight, nil
	}
	if len(c.byID) >= c.max {
		return eventNew, errCacheFull
	}
	e := &event{id: id, expires: expires}
	c.byID[id] = e
	heap.Push(&c.expiry, e)
	return eventNew, nil
}

// commit marks a reserved id as accepted.
func (c *eventCache) commit(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byID[id]; ok {
		e.done = true
	}
}

// release forgets a reserved id, so a retry of the event is accepted.
func (c *eventCache) release(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byID[id]; ok && !e.done {
		heap.Remove(&c.expiry, e.index)
		delete(c.byID, id)
	}
}

// evict drops expired ids. The caller holds mu.
func (c *eventCache) evict(now time.Time) {
	for len(c.expiry) > 0 && !c.expiry[0].expires.After(now) {
		e := heap.Pop(&c.expiry).(*event)
		delete(c.byID, e.id)
	}
}

// expiryHeap orders events by expiry, soonest first.
type expiryHeap []*event

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].expires.Before(h[j].expires) }
func (h expiryHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}

func (h *expiryHeap) Push(x any) {
	e := x.(*event)
	e.index = len(*h)
	*h = append(*h, e)
}

func (h *expiryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}
