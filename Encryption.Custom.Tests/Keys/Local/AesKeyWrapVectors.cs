namespace Encryption.Custom.Tests.Keys.Local;

/// <summary>Published known-answer vectors: RFC 3394 §4.1–4.6 and RFC 5649 §6.</summary>
public static class AesKeyWrapVectors
{
    private const string Kek128 = "000102030405060708090A0B0C0D0E0F";
    private const string Kek192 = "000102030405060708090A0B0C0D0E0F1011121314151617";
    private const string Kek256 = "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F";
    private const string Data128 = "00112233445566778899AABBCCDDEEFF";
    private const string Data192 = "00112233445566778899AABBCCDDEEFF0001020304050607";
    private const string Data256 = "00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F";

    /// <summary>(section, KEK, key data, ciphertext) from RFC 3394 §4.</summary>
    public static (string Name, string Kek, string Data, string Wrapped)[] Rfc3394Rows { get; } =
    [
        ("4.1", Kek128, Data128, "1FA68B0A8112B447AEF34BD8FB5A7B829D3E862371D2CFE5"),
        ("4.2", Kek192, Data128, "96778B25AE6CA435F92B5B97C050AED2468AB8A17AD84E5D"),
        ("4.3", Kek256, Data128, "64E8C3F9CE0F5BA263E9777905818A2A93C8191E7D6E8AE7"),
        ("4.4", Kek192, Data192, "031D33264E15D33268F24EC260743EDCE1C6C7DDEE725A936BA814915C6762D2"),
        ("4.5", Kek256, Data192, "A8F9BC1612C68B3FF6E6F4FBE30E71E4769C8B80A32CB8958CD5D17D6B254DA1"),
        ("4.6", Kek256, Data256, "28C9F404C4B810F4CBCCB35CFB87F8263F5786E2D80ED326CBC7F0E71A99F43BFB988B9B7A02DD21"),
    ];

    /// <summary>(name, KEK, key, wrapped) from RFC 5649 §6.</summary>
    public static (string Name, string Kek, string Data, string Wrapped)[] Rfc5649Rows { get; } =
    [
        ("20 octets", "5840DF6E29B02AF1AB493B705BF16EA1AE8338F4DCC176A8", "C37B7E6492584340BED12207808941155068F738", "138BDEAA9B8FA7FC61F97742E72248EE5AE6AE5360D1AE6A5F54F373FA543B6A"),
        ("7 octets", "5840DF6E29B02AF1AB493B705BF16EA1AE8338F4DCC176A8", "466F7250617369", "AFBEB0F07DFBF5419200F2CCB50BB24F"),
    ];

    public static TheoryData<string, string, string, string> Rfc3394 => ToTheoryData(Rfc3394Rows);

    public static TheoryData<string, string, string, string> Rfc5649 => ToTheoryData(Rfc5649Rows);

    private static TheoryData<string, string, string, string> ToTheoryData((string Name, string Kek, string Data, string Wrapped)[] rows)
    {
        var data = new TheoryData<string, string, string, string>();
        foreach ((string name, string kek, string key, string wrapped) in rows)
        {
            data.Add(name, kek, key, wrapped);
        }

        return data;
    }
}
