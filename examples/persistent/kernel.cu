// A persistent kernel in the style of the CuPer white paper (seed 002):
// launched once, it loops over work items until the host tells it to stop.
// Thread 0 waits for the host's command (the handshake), the block
// synchronises, processes the item and reports completion.
#include "../cuda_decls.h"

extern "C" __global__ void persistent(volatile int *flag, volatile int *done, float *data)
{
	__shared__ int cmd;
	for (;;) {
		if (tid_x() == 0) {
			int c;
			while ((c = *flag) == 0) {
			}
			cmd = c;
		}
		__syncthreads();
		if (cmd < 0)
			break;
		int i = ctaid_x() * ntid_x() + tid_x();
		data[i] = data[i] * 2.0f + 1.0f;
		__syncthreads();
		if (tid_x() == 0) {
			*flag = 0;
			*done = 1;
		}
	}
}
