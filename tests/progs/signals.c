/* Uses SIGUSR1, SIGUSR2, SIGALRM (setitimer), SIGCHLD, stops itself with SIGSTOP and SIGTSTP
 * and is continued by SIGCONT from a child; exits 1 if any signal went missing or came twice. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile sig_atomic_t n_usr1, n_usr2, n_alrm, n_chld, n_cont;
static void h(int s){ if(s==SIGUSR1)n_usr1++; if(s==SIGUSR2)n_usr2++; if(s==SIGALRM)n_alrm++; if(s==SIGCHLD)n_chld++; if(s==SIGCONT)n_cont++; }
static void spin(int ms){ struct timeval a,b; gettimeofday(&a,0); do gettimeofday(&b,0); while((b.tv_sec-a.tv_sec)*1000+(b.tv_usec-a.tv_usec)/1000<ms); }
int main(void){
  struct sigaction sa; memset(&sa,0,sizeof sa); sa.sa_handler=h; sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1,&sa,0); sigaction(SIGUSR2,&sa,0); sigaction(SIGALRM,&sa,0); sigaction(SIGCHLD,&sa,0); sigaction(SIGCONT,&sa,0);
  for(int i=0;i<20;i++){ kill(getpid(),SIGUSR1); raise(SIGUSR2); spin(2);} 
  struct itimerval it={{0,5000},{0,5000}}; setitimer(ITIMER_REAL,&it,0);
  while(n_alrm<20) spin(1);
  struct itimerval z={{0,0},{0,0}}; setitimer(ITIMER_REAL,&z,0);
  pid_t c=fork(); if(!c){ usleep(50000); kill(getppid(),SIGCONT); _exit(7);} 
  raise(SIGSTOP);  /* stopped until the child continues us */
  int st; while(waitpid(c,&st,0)<0); 
  pid_t c2=fork(); if(!c2){ usleep(30000); kill(getppid(), SIGCONT); _exit(0);} raise(SIGTSTP); waitpid(c2,&st,0);
  spin(20);
  printf("usr1=%d usr2=%d alrm=%d chld=%d cont=%d childexit=%d\n", n_usr1,n_usr2,n_alrm,n_chld,n_cont, WEXITSTATUS(st));
  int ok = n_usr1==20 && n_usr2==20 && n_alrm==20 && n_chld==2 && n_cont==2;
  return ok?0:1;
}
