namespace Encryption.Custom.Cosmos.Streams;

/// <summary>
/// A caller's write body read as the Cosmos SDK sends it: a seekable stream whole, from position 0, whatever its
/// position (the SDK rewinds it, or sends a <see cref="MemoryStream"/>'s whole buffer); a non-seekable stream from
/// where it is. EF Core's Cosmos provider, for one, hands over the stream it has just written, positioned at its end.
/// </summary>
internal static class RequestPayload
{
    /// <summary>Moves a seekable <paramref name="body"/> to its start; returns it.</summary>
    public static Stream FromStart(Stream body)
    {
        if (body.CanSeek && body.Position != 0)
        {
            body.Position = 0;
        }

        return body;
    }
}
