/* SB (store buffering): under SC one thread reads the other's store.
 * -D FENCE puts an mfence between each thread's store and load.
 * Expected: sc safe, tso bug, pso bug; with -D FENCE safe everywhere. */
#include <assert.h>
#include <pthread.h>

#ifdef FENCE
#define F() asm volatile("mfence" ::: "memory")
#else
#define F()
#endif

volatile int x, y;
int r1, r2;

void *t1(void *arg) {
  x = 1;
  F();
  r1 = y;
  return 0;
}

void *t2(void *arg) {
  y = 1;
  F();
  r2 = x;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(r1 == 1 || r2 == 1);
  return 0;
}
