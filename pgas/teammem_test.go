package pgas

import (
	"context"
	"sync"
	"testing"
)

// A world costs O(1) member lists per PE, not O(N): the PEs' world and node
// teams share one list each (a world of 16,384 PEs once spent 5 GB on
// them).
func TestTeamMemberListsShared(t *testing.T) {
	var mu sync.Mutex
	worlds, nodes := map[*int]bool{}, map[*int]bool{}
	err := Run(context.Background(), Config{PEs: 64, HeapSize: minHeapSize}, func(ctx context.Context, pe *PE) error {
		mu.Lock()
		defer mu.Unlock()
		worlds[&pe.world.members[0]] = true
		nodes[&pe.node.members[0]] = true
		if pe.world.ID() != pe.ID() || pe.node.WorldPE(pe.node.ID()) != pe.ID() {
			t.Errorf("PE %d: world rank %d, node rank %d", pe.ID(), pe.world.ID(), pe.node.ID())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(worlds) != 1 || len(nodes) != 1 {
		t.Errorf("64 PEs hold %d world member lists and %d node member lists; want one each", len(worlds), len(nodes))
	}
}
