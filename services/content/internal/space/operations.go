package space

import (
	"context"

	"github.com/docspub/platform/libs/ids"
)

// Op is one run of an operation, as the operations queue hands it to the
// tree: its id, its payload and a way to record progress (which fails when
// the run lost the operation to another worker).
type Op interface {
	ID() string
	Payload(v any) error
	// Progress decodes what an earlier run saved (v unchanged when nothing).
	Progress(v any) error
	SaveProgress(ctx context.Context, v any) error
}

// Operations records an operation before any of its work is done, runs it
// detached from the request, and resumes it after a crash or a restart.
type Operations interface {
	// Do records an operation of kind on key with payload for organization
	// org, or joins the unfinished operation of key when its payload is the
	// same (another one is a conflict), and waits for its end within ctx. An
	// operation that ended with an API error returns that error. Operations
	// of organizations running none go first.
	Do(ctx context.Context, org, kind, key string, payload any) error
}

// Kinds of the tree's operations.
const (
	OpTransferCollection = "collection.transfer"
	OpTransferSpace      = "space.transfer"
	OpDuplicateSpace     = "space.duplicate"
)

// OperationHandlers are the tree's operations by kind, for the queue's worker.
func (s *Service) OperationHandlers() map[string]func(context.Context, Op) error {
	return map[string]func(context.Context, Op) error{
		OpTransferCollection: s.runCollectionTransfer,
		OpTransferSpace:      s.runSpaceTransfer,
		OpDuplicateSpace:     s.runDuplicate,
	}
}

// do runs an operation through the queue, or inline without one.
func (s *Service) do(ctx context.Context, org, kind, key string, payload any) error {
	if s.ops != nil {
		return s.ops.Do(ctx, org, kind, key, payload)
	}
	return s.OperationHandlers()[kind](ctx, inlineOp{id: ids.New(), payload: payload})
}

// inlineOp is an operation run within the request (no queue).
type inlineOp struct {
	id      string
	payload any
}

func (o inlineOp) ID() string { return o.id }

func (o inlineOp) Payload(v any) error {
	return copyInto(o.payload, v)
}

func (inlineOp) Progress(any) error { return nil }

func (inlineOp) SaveProgress(context.Context, any) error { return nil }
