/* Peterson's mutual exclusion for two threads, spin loop included.
 * -D TSO_FENCE: mfence before the wait (needed under TSO);
 * -D PSO_FENCE: also between the two stores and before lowering the
 * flag (PSO reorders stores to different variables).
 * Expected: sc safe, tso bug, pso bug; -D TSO_FENCE: sc safe, tso safe,
 * pso bug; -D TSO_FENCE -D PSO_FENCE: safe everywhere. */
#include <assert.h>
#include <pthread.h>

volatile int flag[2], turn, inside;

void *proc(void *arg) {
  int me = (int)(long)arg;
  int other = 1 - me;
  flag[me] = 1;
#ifdef PSO_FENCE
  __sync_synchronize();
#endif
  turn = other;
#ifdef TSO_FENCE
  __sync_synchronize();
#endif
  while (flag[other] == 1 && turn == other)
    ;
  inside = inside + 1;
  assert(inside == 1);
  inside = inside - 1;
#ifdef PSO_FENCE
  __sync_synchronize();
#endif
  flag[me] = 0;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, proc, (void *)0);
  pthread_create(&b, 0, proc, (void *)1);
  return 0;
}
