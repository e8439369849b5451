import type { TFunctionTemplate } from '@persona/contract';

/**
 * The templates the Functions page starts from (GET /api/function_templates). Each is complete,
 * working python 3 using only the standard library: the function named like the File Name is what
 * the avatar calls, with keyword arguments chosen by the language model from the parameters and
 * docstring; it returns text or JSON-serialisable data that the avatar uses in its answer.
 */
export const functionTemplates: readonly TFunctionTemplate[] = [
  {
    id: 'empty',
    title: 'Empty function canvas',
    description: 'A blank function with the structure every function needs: a name, typed parameters, a docstring and a return value.',
    name: 'my_function',
    code: `def my_function(text: str) -> str:
    """Describe what this function does and when the avatar should call it.

    Args:
        text: What the avatar passes in.
    """
    return text
`,
  },
  {
    id: 'example',
    title: 'Example template',
    description: 'Works out a tip and splits the bill: shows parameters with defaults, input checks and a structured result.',
    name: 'split_bill',
    code: `def split_bill(total: float, people: int = 1, tip_percent: float = 15.0) -> dict:
    """Work out the tip for a restaurant bill and how much each person pays.

    Call this when the visitor asks how to split a bill or how much to tip.

    Args:
        total: The bill amount before the tip.
        people: How many people share the bill (at least 1).
        tip_percent: The tip as a percentage of the bill, for example 15.
    """
    if total < 0:
        return {"error": "The bill amount cannot be negative."}
    people = max(1, int(people))
    tip = round(total * tip_percent / 100, 2)
    grand_total = round(total + tip, 2)
    return {
        "tip": tip,
        "total_with_tip": grand_total,
        "each_person_pays": round(grand_total / people, 2),
        "people": people,
    }
`,
  },
  {
    id: 'weather',
    title: 'Weather',
    description: 'Looks up the current weather for a city with the free Open-Meteo service (no API key needed).',
    name: 'get_weather',
    code: `import json
import urllib.parse
import urllib.request

WEATHER_CODES = {
    0: "clear sky", 1: "mainly clear", 2: "partly cloudy", 3: "overcast",
    45: "fog", 48: "freezing fog", 51: "light drizzle", 53: "drizzle", 55: "heavy drizzle",
    61: "light rain", 63: "rain", 65: "heavy rain", 71: "light snow", 73: "snow", 75: "heavy snow",
    80: "rain showers", 81: "heavy rain showers", 95: "thunderstorm",
}


def _get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=8) as response:
        return json.loads(response.read().decode("utf-8"))


def get_weather(city: str, units: str = "celsius") -> dict:
    """Get the current weather in a city.

    Call this when the visitor asks about the weather, the temperature or the wind somewhere.

    Args:
        city: The city name, for example "Paris" or "New York".
        units: "celsius" or "fahrenheit".
    """
    query = urllib.parse.urlencode({"name": city, "count": 1})
    places = _get_json(f"https://geocoding-api.open-meteo.com/v1/search?{query}").get("results") or []
    if not places:
        return {"error": f"I could not find a place called {city}."}
    place = places[0]
    params = urllib.parse.urlencode({
        "latitude": place["latitude"],
        "longitude": place["longitude"],
        "current": "temperature_2m,wind_speed_10m,weather_code",
        "temperature_unit": "fahrenheit" if units == "fahrenheit" else "celsius",
    })
    current = _get_json(f"https://api.open-meteo.com/v1/forecast?{params}")["current"]
    return {
        "place": f"{place['name']}, {place.get('country', '')}".strip(", "),
        "temperature": current["temperature_2m"],
        "units": units,
        "wind_speed_kmh": current["wind_speed_10m"],
        "conditions": WEATHER_CODES.get(current["weather_code"], "unknown"),
    }
`,
  },
  {
    id: 'ssml',
    title: 'SSML',
    description: 'Returns SSML so the avatar speaks with pauses, emphasis and a chosen speaking rate.',
    name: 'speak_with_emphasis',
    code: `from xml.sax.saxutils import escape

RATES = {"slow": "85%", "normal": "100%", "fast": "115%"}


def speak_with_emphasis(text: str, emphasis: str = "", rate: str = "normal", pause_ms: int = 300) -> str:
    """Turn a sentence into SSML the avatar's voice reads with emphasis and pauses.

    Call this when a word must stand out (a price, a date, a warning) or the visitor asks to speak slower.

    Args:
        text: The sentence to say.
        emphasis: A word or phrase of the sentence to stress, or "" for none.
        rate: "slow", "normal" or "fast".
        pause_ms: Silence in milliseconds after each sentence.
    """
    pause = f'<break time="{max(0, min(int(pause_ms), 5000))}ms"/>'
    sentences = [s.strip() for s in text.replace("!", ".").replace("?", ".").split(".") if s.strip()]
    parts = []
    for sentence in sentences or [text]:
        spoken = escape(sentence)
        if emphasis and emphasis in sentence:
            spoken = spoken.replace(escape(emphasis), f'<emphasis level="strong">{escape(emphasis)}</emphasis>', 1)
        parts.append(f"<s>{spoken}</s>{pause}")
    return f'<speak><prosody rate="{RATES.get(rate, "100%")}">{"".join(parts)}</prosody></speak>'
`,
  },
];
