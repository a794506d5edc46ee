/* Dekker's entry protocol (one attempt): a thread enters the critical
 * section only when the other's flag is down. -D FENCE: mfence after
 * raising the flag and before lowering it (PSO may let the lowering
 * overtake the critical section's stores). Expected: sc safe, tso bug, pso bug; with -D FENCE
 * safe everywhere. */
#include <assert.h>
#include <pthread.h>

#ifdef FENCE
#define F() atomic_thread_fence(5)
#else
#define F()
#endif
void atomic_thread_fence(int);

volatile int flag0, flag1, inside;

void enter(volatile int *mine, volatile int *other) {
  *mine = 1;
  F();
  if (*other == 0) {
    inside++;
    assert(inside == 1);
    inside--;
  }
  F(); /* under PSO the flag's store must not overtake the critical section's */
  *mine = 0;
}

void *t0(void *arg) {
  enter(&flag0, &flag1);
  return 0;
}

void *t1(void *arg) {
  enter(&flag1, &flag0);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t0, 0);
  pthread_create(&b, 0, t1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
