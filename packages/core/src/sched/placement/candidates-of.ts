import type { DTask } from '../../task/dtask.js';
import type { SlotTable } from '../scheduler-state.js';
import { explainRemoved } from './allowed-processors.js';
import type { CandidateSlots } from './candidate-slots.js';
import type { ProcSlot } from './proc-slot.js';

/** What finding a task's processors reads: the slot table and the cache of its answers. */
export interface CandidateTable extends SlotTable {
  /** Which processors a task may run on (kept for default-placed tasks). */
  readonly candidateSlots: CandidateSlots;
}

/**
 * The processors `task` may run on; a `SchedulingError` when none, naming the processors
 * removed from the context that it could have run on.
 */
export function candidatesOf(s: CandidateTable, task: DTask<unknown>): ProcSlot[] {
  try {
    return s.candidateSlots.of(task, s.slots);
  } catch (error) {
    throw explainRemoved(task, error, s.slotById.values());
  }
}
