/* MP (message passing): the reader sees the flag, then the data.
 * -D FENCE puts a fence between the writer's two stores (PSO reorders
 * them; TSO does not). Expected: sc safe, tso safe, pso bug; with
 * -D FENCE safe everywhere. */
#include <assert.h>
#include <pthread.h>

volatile int data, flag;

void *writer(void *arg) {
  data = 42;
#ifdef FENCE
  __sync_synchronize();
#endif
  flag = 1;
  return 0;
}

void *reader(void *arg) {
  if (flag == 1)
    assert(data == 42);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, writer, 0);
  pthread_create(&b, 0, reader, 0);
  return 0;
}
