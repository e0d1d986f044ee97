// Exchanges two paths (a directory and a symlink, say) with renameat2(RENAME_EXCHANGE) in a
// tight loop, as an attacker inside a root would, until SIGTERM or until SECONDS have passed;
// then leaves both where they started and prints how many exchanges it made. Built by the
// race tests (tests/_swapper.ts).
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static volatile sig_atomic_t stopping = 0;

static void stop(int signal) {
  (void)signal;
  stopping = 1;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: swap A B SECONDS\n");
    return 2;
  }
  signal(SIGTERM, stop);
  double seconds = atof(argv[3]);
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  unsigned long swaps = 0;
  while (!stopping) {
    if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE) != 0) {
      perror("renameat2");
      return 1;
    }
    swaps++;
    if ((swaps & 1023) == 0) {
      clock_gettime(CLOCK_MONOTONIC, &now);
      if ((now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 > seconds) break;
    }
  }
  // An even count leaves both paths where they started.
  if (swaps % 2 == 1) syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE);
  printf("%lu\n", swaps);
  return 0;
}
