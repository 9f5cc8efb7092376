using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Keys.Cosmos;

/// <summary>Builds a <see cref="CosmosException"/> from a stream response, to keep as the cause of a key-layer error.</summary>
internal static class CosmosResponses
{
    public static CosmosException ToException(ResponseMessage response, string message)
    {
        _ = int.TryParse(response.Headers["x-ms-substatus"], System.Globalization.NumberStyles.Integer, System.Globalization.CultureInfo.InvariantCulture, out int subStatusCode);
        return new CosmosException(message, response.StatusCode, subStatusCode, response.Headers.ActivityId, response.Headers.RequestCharge);
    }
}
