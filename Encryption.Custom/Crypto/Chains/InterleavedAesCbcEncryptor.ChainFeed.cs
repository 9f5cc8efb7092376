// The bookkeeping of InterleavedAesCbcEncryptor's lanes: which value each lane encrypts, where its next block comes
// from and goes to, and the padded last block of its value. Everything here is a length or an offset (public), except
// the last blocks, which hold plaintext and are wiped by the encryptor after every batch.
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;

namespace Encryption.Custom.Crypto.Chains;

internal sealed partial class InterleavedAesCbcEncryptor
{
    // Where one lane is in its chain. Everything here is a length or an offset: public.
    private struct Lane
    {
        public bool Active;
        public int Block;
        public int Blocks;
        public int WholeBlocks;
        public int PlainTextOffset;
        public int CipherTextOffset;
    }

    // Hands chains to lanes in batch order and moves blocks in and out of them.
    private ref struct ChainFeed
    {
        private readonly ReadOnlySpan<byte> _plainTexts;
        private readonly Span<byte> _output;
        private readonly ReadOnlySpan<CbcChain> _chains;
        private readonly Span<Lane> _lanes;
        private readonly Span<byte> _lastBlocks;
        private int _next;

        public ChainFeed(ReadOnlySpan<byte> plainTexts, Span<byte> output, ReadOnlySpan<CbcChain> chains, Span<Lane> lanes, Span<byte> lastBlocks)
        {
            _plainTexts = plainTexts;
            _output = output;
            _chains = chains;
            _lanes = lanes;
            _lastBlocks = lastBlocks;
        }

        public int ActiveLanes { get; private set; }

        public readonly ReadOnlySpan<byte> PlainTexts => _plainTexts;

        public readonly Span<byte> Output => _output;

        // With all four lanes busy, how many whole blocks each has left at least (0 otherwise).
        public readonly int CommonWholeBlocks()
        {
            if (ActiveLanes < Lanes)
            {
                return 0;
            }

            int steps = int.MaxValue;
            foreach (Lane state in _lanes)
            {
                steps = Math.Min(steps, state.WholeBlocks - state.Block);
            }

            return steps;
        }

        // The one busy lane when no value waits for a lane, else -1.
        public readonly int LastLane()
        {
            if (ActiveLanes != 1 || _next != _chains.Length)
            {
                return -1;
            }

            for (int lane = 0; lane < Lanes; lane++)
            {
                if (_lanes[lane].Active)
                {
                    return lane;
                }
            }

            return -1;
        }

        public readonly int WholeBlocksLeft(int lane) => _lanes[lane].WholeBlocks - _lanes[lane].Block;

        // Where the lane's next plaintext block and ciphertext block are (whole blocks only).
        public readonly int InputOffset(int lane) => _lanes[lane].PlainTextOffset + (_lanes[lane].Block * BlockSize);

        public readonly int OutputOffset(int lane) => _lanes[lane].CipherTextOffset + (_lanes[lane].Block * BlockSize);

        // Every lane moved on by steps whole blocks (the hot loop stored them).
        public readonly void Advance(int steps)
        {
            for (int lane = 0; lane < Lanes; lane++)
            {
                _lanes[lane].Block += steps;
            }
        }

        public readonly void Advance(int lane, int steps) => _lanes[lane].Block += steps;

        // The lane's next plaintext block: a whole block straight from the plaintexts, or the padded last block.
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public readonly Vector128<byte> Input(int lane)
        {
            ref readonly Lane state = ref _lanes[lane];
            if (!state.Active)
            {
                return Vector128<byte>.Zero;
            }

            return state.Block < state.WholeBlocks
                ? Vector128.Create(_plainTexts.Slice(state.PlainTextOffset + (state.Block * BlockSize), BlockSize))
                : Vector128.Create(_lastBlocks.Slice(lane * BlockSize, BlockSize));
        }

        // Stores the lane's ciphertext block; returns the chaining value for its next block (or next chain's IV).
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public Vector128<byte> Finish(int lane, Vector128<byte> cipherBlock)
        {
            ref Lane state = ref _lanes[lane];
            if (!state.Active)
            {
                return cipherBlock;
            }

            cipherBlock.CopyTo(_output.Slice(state.CipherTextOffset + (state.Block * BlockSize), BlockSize));
            if (++state.Block < state.Blocks)
            {
                return cipherBlock;
            }

            ActiveLanes--;
            return Start(lane);
        }

        // Gives the lane the next chain, if any is left: builds its padded last block, returns its IV.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public Vector128<byte> Start(int lane)
        {
            ref Lane state = ref _lanes[lane];
            Span<byte> lastBlock = _lastBlocks.Slice(lane * BlockSize, BlockSize);
            if (_next == _chains.Length)
            {
                state = default;
                lastBlock.Clear();
                return Vector128<byte>.Zero;
            }

            CbcChain chain = _chains[_next++];
            int wholeBlocks = chain.PlainTextLength / BlockSize;
            state = new Lane
            {
                Active = true,
                Block = 0,
                Blocks = wholeBlocks + 1,
                WholeBlocks = wholeBlocks,
                PlainTextOffset = chain.PlainTextOffset,
                CipherTextOffset = chain.CipherTextOffset,
            };
            int tailOffset = chain.PlainTextOffset + (wholeBlocks * BlockSize);
            CbcChainBatch.PadLastBlock(_plainTexts.Slice(tailOffset, chain.PlainTextLength - (wholeBlocks * BlockSize)), lastBlock);
            ActiveLanes++;
            return Vector128.Create(_output.Slice(chain.IvOffset, BlockSize));
        }
    }
}
