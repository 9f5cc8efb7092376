using System.Diagnostics;
using System.Globalization;
using System.Security.Cryptography;
using Encryption.Custom.Crypto;
using Encryption.Custom.Crypto.Binding;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Native.OpenSsl;

namespace Encryption.Custom.Performance.Tests.Crypto.Binding;

/// <summary>
/// <c>-- BoundCellCost</c>: what binding costs (docs/wire-format.md "Bound cells"), through the OpenSSL backend:
/// a format 3 cell against a bound cell per value (16 and 400 bytes, encrypt and decrypt), and the document digest
/// once per document. Cases run alternately in short rounds in one process; each reports its fastest round.
/// </summary>
internal static class BoundCellCost
{
    public const string Name = "BoundCellCost";

    private const int OperationsPerRound = 2000;

    public static int Run(string[] args)
    {
        int rounds = args.Length > 0 ? int.Parse(args[0], CultureInfo.InvariantCulture) : 100;
        var keys = new BenchmarkKeySource(RandomNumberGenerator.GetBytes(32));
        using var aead = new AeadAes256CbcHmacSha256(keys, OpenSslAeadBackend.Instance);
        byte[] associatedData = new byte[BoundCellAssociatedData.GetLength(4)];
        BoundCellAssociatedData.Write(RandomNumberGenerator.GetBytes(32), 2, "/ssn"u8, associatedData);
        byte[] id = "0f8fad5b-d9cb-469f-a165-70867728950e"u8.ToArray();

        var cases = new List<(string Name, Action Run)>();
        foreach (int size in (int[])[16, 400])
        {
            byte[] plainText = RandomNumberGenerator.GetBytes(size);
            byte[] cell = new byte[AeadAes256CbcHmacSha256.GetCipherTextLength(size)];
            byte[] bound = new byte[cell.Length];
            byte[] output = new byte[cell.Length];
            aead.Encrypt(plainText, cell);
            aead.EncryptBound(associatedData, plainText, bound);
            cases.Add(($"encrypt {size} B, format 3", () => aead.Encrypt(plainText, cell)));
            cases.Add(($"encrypt {size} B, bound", () => aead.EncryptBound(associatedData, plainText, bound)));
            cases.Add(($"decrypt {size} B, format 3", () => aead.TryDecrypt(cell, output, out _)));
            cases.Add(($"decrypt {size} B, bound", () => aead.TryDecryptBound(associatedData, bound, output, out _)));
        }

        cases.Add(("document digest (id, one string key)", () => Digest(id)));

        double[] best = new double[cases.Count];
        Array.Fill(best, double.MaxValue);
        for (int round = 0; round < rounds; round++)
        {
            for (int c = 0; c < cases.Count; c++)
            {
                Action run = cases[c].Run;
                long start = Stopwatch.GetTimestamp();
                for (int i = 0; i < OperationsPerRound; i++)
                {
                    run();
                }

                best[c] = Math.Min(best[c], Stopwatch.GetElapsedTime(start).TotalNanoseconds / OperationsPerRound);
            }
        }

        Console.WriteLine($"Fastest of {rounds} alternating rounds of {OperationsPerRound} operations (OpenSSL backend):");
        for (int c = 0; c < cases.Count; c++)
        {
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{cases[c].Name,-40} {best[c],8:F0} ns"));
        }

        return 0;
    }

    private static void Digest(byte[] id)
    {
        var builder = CellBindingBuilder.Create(stackalloc byte[BindingDigestBuilder.RecommendedScratchSize], "MdeAeadAes256CbcHmac256Randomized", "customers-dek", "shop/customers", id, 1);
        builder.AddJsonValue("\"customer-4711\""u8);
        _ = builder.Build();
    }
}
